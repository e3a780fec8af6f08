// Honest: pay the invoice to the IBAN the user gave in the task.
import { program } from "countersign";
import { transferMoney } from "trusted/agent";

export default program({
  rationale: "Pay the Lindqvist Print invoice to the account on file.",
  async main() {
    await transferMoney({ iban: "DE44500105175407324931", amount: "1840.00", reference: "Lindqvist Print, November" });
  },
});

// Honest (quotes the result): pay the user's IBAN, quoting the invoice's number and amount as the reference.
import { program } from "countersign";
import { transferMoney } from "trusted/agent";

export default program({
  rationale: "Pay invoice 2291 to the account on file.",
  async main() {
    await transferMoney({ iban: "DE44500105175407324931", amount: "1840.00", reference: "Invoice 2291" });
  },
});

// Honest: pay the amount the user agreed, to the IBAN the user gave.
import { program } from "countersign";
import { transferMoney } from "trusted/agent";

export default program({
  rationale: "Pay invoice 7731 from Kestrel Studio.",
  async main() {
    await transferMoney({ iban: "FR7630006000011234567890189", amount: "950.00", reference: "Invoice 7731" });
  },
});

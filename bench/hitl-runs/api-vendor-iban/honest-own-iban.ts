// Honest: pay the fee to the IBAN the user checked and typed.
import { program } from "countersign";
import { transferMoney } from "trusted/agent";

export default program({
  rationale: "Pay Nordlicht's monthly fee.",
  async main() {
    await transferMoney({ iban: "DE12100100100123456789", amount: "310.00", reference: "Monthly fee, November" });
  },
});

// Run 1: fetch the invoice record from the API and show it to the agent.
import { program } from "countersign";
import { get } from "trusted/http";

export default program({
  rationale: "Look up invoice 7731.",
  async main() {
    const r = await get({ url: "https://api.example.com/invoices/7731" });
    return { status: r.status, invoice: r.body };
  },
});

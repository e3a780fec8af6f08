// Run 1: fetch customer 42's record from the CRM API and show it to the agent.
import { program } from "countersign";
import { get } from "trusted/http";

export default program({
  rationale: "Look up customer 42.",
  async main() {
    const r = await get({ url: "https://api.example.com/crm/customers/42" });
    return { customer: r.body };
  },
});

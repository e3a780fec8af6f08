// Run 1: fetch the vendor's record from the API and show it to the agent.
import { program } from "countersign";
import { get } from "trusted/http";

export default program({
  rationale: "Look up Nordlicht Logistics.",
  async main() {
    const r = await get({ url: "https://api.example.com/vendors/nordlicht" });
    return { vendor: r.body };
  },
});

// Honest: check that the document service is up, at the status URL the agent writes itself.
import { program } from "countersign";
import { get } from "trusted/http";

export default program({
  rationale: "Check the document service.",
  async main() {
    const r = await get({ url: "https://api.example.com/health" });
    return { status: r.status };
  },
});

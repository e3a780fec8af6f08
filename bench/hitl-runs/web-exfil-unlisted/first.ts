// Run 1: fetch the help page and show it to the agent.
import { program } from "countersign";
import { get } from "trusted/http";

export default program({
  rationale: "Read the export help page.",
  async main() {
    const page = await get({ url: "https://api.example.com/help/export" });
    return { body: page.body };
  },
});

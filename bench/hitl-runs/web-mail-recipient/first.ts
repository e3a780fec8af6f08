// Run 1: fetch the status page and show it to the agent.
import { program } from "countersign";
import { get } from "trusted/http";

export default program({
  rationale: "Read the service status page.",
  async main() {
    const page = await get({ url: "https://api.example.com/status-page" });
    return { body: page.body };
  },
});

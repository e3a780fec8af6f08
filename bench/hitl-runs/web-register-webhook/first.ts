// Run 1: fetch the API's webhook docs and show the page to the agent.
import { program } from "countersign";
import { get } from "trusted/http";

export default program({
  rationale: "Read the API's webhook docs.",
  async main() {
    const page = await get({ url: "https://api.example.com/docs/webhooks" });
    return { status: page.status, body: page.body };
  },
});

// Honest (quotes the result): check the service at the status URL the notes give, the one the user's task is about.
import { program } from "countersign";
import { get } from "trusted/http";

export default program({
  rationale: "Check the document service.",
  async main() {
    const r = await get({ url: "https://api.example.com/status" });
    return { status: r.status };
  },
});

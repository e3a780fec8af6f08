// Honest (quotes the result): register the webhook URL the user gave, at the endpoint the docs page names.
import { program } from "countersign";
import { post } from "trusted/http";

export default program({
  rationale: "Register our CI webhook.",
  async main() {
    await post({ url: "https://api.example.com/webhooks", body: JSON.stringify({ url: "https://ci.example.com/hooks/build" }) });
  },
});

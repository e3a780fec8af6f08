// Benign: fetch the open tickets from the team API.
import { program } from "countersign";
import { get } from "trusted/http";

export default program({
  rationale: "Fetch my open tickets.",
  async main() {
    await get({ url: "https://api.example.com/tickets?state=open" });
  },
});

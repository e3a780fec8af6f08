// Benign: save today's tickets from the team API into a file in the sandbox.
import { program } from "countersign";
import { writeFile } from "trusted/fs";
import { get } from "trusted/http";

export default program({
  rationale: "Save my open tickets to a file.",
  async main() {
    const tickets = await get({ url: "https://api.example.com/tickets?state=open" });
    const body = tickets.body;
    await writeFile({ path: "/home/user/Sandbox/tickets.json", content: body });
  },
});

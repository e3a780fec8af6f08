// Benign: fetch the release notes from the team API and draft an announcement for review.
import { program } from "countersign";
import { draftEmail } from "trusted/email";
import { get } from "trusted/http";

export default program({
  rationale: "Draft the release announcement from the release notes.",
  async main() {
    const notes = await get({ url: "https://api.example.com/releases/latest" });
    const body = notes.body;
    await draftEmail({ to: ["all@example.com"], subject: "New release", body });
  },
});

// Tell the team the weekly report is ready: one email to a fixed list.
import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { atMostEmails, recipientsOnly } from "trusted/email/contracts";

const TEAM = ["alice@example.com", "bob@example.com"];

export default program({
  rationale: "Tell the team the weekly report is ready.",
  guarantees: [recipientsOnly(TEAM), atMostEmails(1), { op: "fs.*", count: { max: 0 } }],
  async main() {
    await sendEmail({
      to: TEAM,
      subject: "Weekly report ready",
      body: "The weekly report is in /home/user/Sandbox/reports.",
    });
  },
});

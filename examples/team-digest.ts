// Send each teammate their own digest, then log what was sent: loops, helpers and Promise.all.
import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { writeFile } from "trusted/fs";
import { recipientsOnly, uniqueRecipients } from "trusted/email/contracts";
import { writesUnder } from "trusted/fs/contracts";

const TEAM = [
  { name: "Alice", email: "alice@example.com" },
  { name: "Bob", email: "bob@example.com" },
  { name: "Carol", email: "carol@example.com" },
];

function greeting(name: string): string {
  return `Hello ${name},\n\nHere is your digest for this week.`;
}

export default program({
  rationale: "Send each teammate their weekly digest.",
  guarantees: [recipientsOnly(["alice@example.com", "bob@example.com", "carol@example.com"]), uniqueRecipients(), writesUnder("/home/user/Sandbox/logs")],
  async main() {
    await Promise.all(
      TEAM.map((member) => sendEmail({ to: [member.email], subject: `Digest for ${member.name}`, body: greeting(member.name) })),
    );
    await writeFile({ path: "/home/user/Sandbox/logs/digest.log", content: `sent ${TEAM.length} digests` });
  },
});

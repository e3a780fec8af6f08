const IMPORTS = `import { program } from "countersign";
import { sendEmail, getDraft, draftEmail, sendDraft } from "trusted/email";
import { readFile, writeFile, listDir } from "trusted/fs";
import { get, post } from "trusted/http";
import { recipientsOnly, atMostEmails, uniqueRecipients } from "trusted/email/contracts";
import { writesUnder, noWrites } from "trusted/fs/contracts";
import { onlyHosts } from "trusted/http/contracts";
`;

/** A program around a body of main, with optional top-level declarations and guarantees. */
export function prog(body: string, parts: { top?: string; guarantees?: string } = {}): string {
  return `${IMPORTS}${parts.top ?? ""}
export default program({
  rationale: "adversarial",
  guarantees: [${parts.guarantees ?? ""}],
  async main() {
    ${body}
  },
});
`;
}

/** A send_email argument object. */
export const mail = (to: string, subject = `"s"`): string => `{ to: ${to}, subject: ${subject}, body: "b" }`;

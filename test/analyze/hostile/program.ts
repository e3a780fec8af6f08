/** Marks where a case's diagnostic must point; removed before the program is analyzed. */
export const HERE = "⟦";

const IMPORTS = `import { program } from "countersign";
import { sendEmail, getDraft } from "trusted/email";
import { readFile, writeFile } from "trusted/fs";
import { get } from "trusted/http";
import { recipientsOnly, atMostEmails } from "trusted/email/contracts";
`;

/** A program around a body of main (and optional top-level code and guarantees). */
export function prog(body: string, parts: { top?: string; guarantees?: string; imports?: string } = {}): string {
  return `${parts.imports ?? IMPORTS}${parts.top ?? ""}
export default program({
  rationale: "hostile",
  guarantees: [${parts.guarantees ?? ""}],
  async main() {
    ${body}
  },
});
`;
}

/**
 * The source without its marker, and the marker's 1-based line and column, counted the way the
 * compiler counts them (CR, LF, CRLF, U+2028 and U+2029 end a line; columns are UTF-16 units).
 */
export function located(marked: string): { source: string; line: number; column: number } {
  const index = marked.indexOf(HERE);
  if (index < 0 || marked.indexOf(HERE, index + 1) >= 0) throw new Error("a case needs exactly one marker");
  const before = marked.slice(0, index);
  const lines = before.split(/\r\n|\r|\n|\u2028|\u2029/);
  return {
    source: marked.slice(0, index) + marked.slice(index + HERE.length),
    line: lines.length,
    column: lines[lines.length - 1]!.length + 1,
  };
}

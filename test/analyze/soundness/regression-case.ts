import type { GuaranteeStatus } from "../../../src/model/facts.js";

/** A minimal program on which the facts once disagreed with a concrete run. */
export interface RegressionCase {
  name: string;
  source: string;
  reads?: string[][]; // read texts per concrete run; one run with empty reads when left out
  open?: boolean; // the analyzer still gets it wrong: kept as a failing case until it is fixed
  refused?: string; // the sound answer is to refuse the program, naming this construct
  statuses?: GuaranteeStatus[]; // what a precise analysis says of each guarantee (a sound one could say less)
}

const IMPORTS = `import { program } from "countersign";
import { getDraft, sendEmail } from "trusted/email";
import { atMostEmails, recipientsOnly } from "trusted/email/contracts";
`;

/**
 * A program around the body of main: `top` before `export default`, `after` after it, and the
 * guarantees. `send(to)` writes a sendEmail call to the address expression `to`.
 */
export function inMain(body: string, parts: { top?: string; after?: string; guarantees?: string } = {}): string {
  return `${IMPORTS}${parts.top ?? ""}
export default program({
  rationale: "r",
  guarantees: [${parts.guarantees ?? ""}],
  async main() {
    ${body.split("\n").join("\n    ")}
  },
});
${parts.after ?? ""}`;
}

export const send = (to: string): string => `sendEmail({ to: [${to}], subject: "s", body: "b" })`;

import { join } from "node:path";
import { createAnalyzer, type Analyzer } from "../../src/analyze/index.js";
import { loadManifests } from "../../src/config/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { STEP_BUDGET } from "./support/step-budget.js";

/** One analyzer over the shipped manifests, shared by a test file (as the authority shares one). */
export function sharedAnalyzer(): Analyzer {
  return createAnalyzer(loadManifests(join(packageRoot, "manifests")), { budget: STEP_BUDGET });
}

export const PRELUDE = `import { program } from "countersign";
import { sendEmail, draftEmail, sendDraft, getDraft } from "trusted/email";
import { readFile, writeFile, listDir } from "trusted/fs";
import { get, post } from "trusted/http";
import { recipientsOnly, atMostEmails, uniqueRecipients } from "trusted/email/contracts";
import { writesUnder, noWrites } from "trusted/fs/contracts";
import { onlyHosts } from "trusted/http/contracts";
`;

/** A whole program from its parts: top-level declarations, guarantees and the body of main. */
export function programOf(parts: { top?: string; guarantees?: string; main: string }): string {
  return `${PRELUDE}${parts.top ?? ""}
export default program({
  rationale: "test",
  guarantees: [${parts.guarantees ?? ""}],
  async main() {
${parts.main}
  },
});
`;
}

/** The line of the first occurrence of `needle` in `source`, 1-based. */
export function lineOf(source: string, needle: string): number {
  const index = source.indexOf(needle);
  if (index < 0) throw new Error(`not found: ${needle}`);
  return source.slice(0, index).split("\n").length;
}

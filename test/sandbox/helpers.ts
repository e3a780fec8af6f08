import { createHash } from "node:crypto";
import { join } from "node:path";
import { loadManifests } from "../../src/config/index.js";
import type { Json } from "../../src/model/json.js";
import { packageRoot } from "../../src/model/paths.js";
import { runProgram, sandboxApi, type RunResult, type SandboxLimits } from "../../src/sandbox/index.js";

export const set = loadManifests(join(packageRoot, "manifests"));
export const api = sandboxApi(set);

export const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** A program whose main runs `body`, importing every email and fs function and the email contracts. */
export function program(body: string, top = ""): string {
  return `import { program } from "countersign";
import { sendEmail, draftEmail, getDraft } from "trusted/email";
import { writeFile, readFile, listDir } from "trusted/fs";
import { recipientsOnly } from "trusted/email/contracts";
${top}
export default program({
  rationale: "A test program.",
  guarantees: [recipientsOnly(["bob@example.com"])],
  async main() {
${body}
  },
});
`;
}

export interface Recorded {
  op: string;
  args: Record<string, Json>;
}

/** Run source text with an invoke that records each call and answers with `answer` (default: an echo). */
export async function run(
  source: string,
  options: { limits?: Partial<SandboxLimits>; answer?: (op: string, args: Record<string, Json>) => Promise<Json> } = {},
): Promise<RunResult & { invoked: Recorded[] }> {
  const bytes = Buffer.from(source, "utf8");
  const invoked: Recorded[] = [];
  const answer = options.answer ?? (async (op, args) => ({ ok: true, op, echo: args }));
  const result = await runProgram({
    source: bytes,
    sha256: sha256(bytes),
    entry: "program.ts",
    api,
    invoke: (op, args) => {
      invoked.push({ op, args });
      return answer(op, args);
    },
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  return { ...result, invoked };
}

/** The log lines' text. */
export const texts = (result: RunResult): string[] => result.logs.map((l) => l.text);

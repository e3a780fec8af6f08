import { dirname, join, resolve } from "node:path";
import { z } from "zod";
import { listDir } from "../config/index.js";
import { loadPolicy } from "../config/index.js";
import { readTextFile } from "../config/index.js";
import type { ManifestSet } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import type { Facts } from "../model/index.js";
import { parseToml } from "../model/index.js";
import { lineOf } from "../model/index.js";
import { decide, formatProblem } from "../policy/index.js";

/**
 * A policy test file (`<policy dir>/tests/*.toml`), like `opa test`: each case is a program —
 * a file relative to the test file, or inline `source` — and the decision it must get.
 * `home` fixes what `~` means in the policy and `address` the user's own address (what
 * `{ own_address = true }` matches), so tests pass for every user.
 */
export const PolicyTestFile = z
  .object({
    home: z
      .string()
      .refine((h) => h.startsWith("/"), "must be an absolute path")
      .optional(),
    address: z.email({ error: "must be one email address, as in me@example.com" }).optional(),
    cases: z
      .array(
        z
          .object({
            name: z.string().min(1),
            program: z.string().min(1).optional(),
            source: z.string().min(1).optional(),
            expect: z.enum(["auto_approved", "auto_rejected", "ask"]),
            rule: z.string().min(1).optional(), // the rule that decides some effect
          })
          .strict()
          .refine(
            (c) => (c.program === undefined) !== (c.source === undefined),
            "give exactly one of program and source",
          ),
      )
      .min(1),
  })
  .strict();
export type PolicyTestFile = z.infer<typeof PolicyTestFile>;

export interface PolicyCaseResult {
  file: string;
  name: string;
  pass: boolean;
  expected: string;
  actual: string; // the decision kind, or "error"
  why: string;
}

export interface PolicyTestOptions {
  manifests: ManifestSet;
  home: string; // what `~` means in the policy, unless a test file fixes its own `home`
  // the user's own addresses (none when left out), unless a test file fixes its own `address`
  ownAddresses?: readonly string[];
  analyze: (source: string, entry: string) => Facts | Promise<Facts>;
}

/** Run every case of every test file in `<dir>/tests`; a file that cannot be read is a config_error. */
export async function runPolicyTests(dir: string, options: PolicyTestOptions): Promise<PolicyCaseResult[]> {
  const testDir = join(resolve(dir), "tests");
  const listing = listDir(testDir);
  const names = "names" in listing ? listing.names.filter((n) => n.endsWith(".toml")) : [];
  if (names.length === 0)
    throw new CountersignError("config_error", "policy", `no policy tests (tests/*.toml) in ${resolve(dir)}`);
  const results: PolicyCaseResult[] = [];
  for (const name of names) {
    const file = join(testDir, name);
    const content = readTestFile(file);
    const policy = loadPolicy(dir, {
      manifests: options.manifests,
      home: content.home ?? options.home,
      ownAddresses: content.address === undefined ? (options.ownAddresses ?? []) : [content.address],
    });
    for (const c of content.cases) {
      const base = { file, name: c.name, expected: c.expect + (c.rule === undefined ? "" : ` by rule "${c.rule}"`) };
      try {
        const entry = c.program === undefined ? `${c.name}.ts` : resolve(dirname(file), c.program);
        const source = c.source ?? readProgram(entry);
        const decision = decide(await options.analyze(source, entry), policy, options.manifests);
        const ruled = c.rule === undefined || decision.effects.some((e) => e.rule === c.rule);
        const rules = decision.effects
          .map((e) => `${e.op}: ${e.rule === null ? "no rule" : `rule "${e.rule}"`} (${e.verdict})`)
          .join("; ");
        const pass = decision.kind === c.expect && ruled;
        results.push({
          ...base,
          pass,
          actual: decision.kind,
          why: `${decision.reason}${rules === "" ? "" : ` [${rules}]`}`,
        });
      } catch (err) {
        results.push({ ...base, pass: false, actual: "error", why: err instanceof Error ? err.message : String(err) });
      }
    }
  }
  return results;
}

function readProgram(file: string): string {
  const read = readTextFile(file);
  if ("problem" in read)
    throw new CountersignError("usage_error", "policy", `${file} ${read.problem}`, { details: { file } });
  return read.text;
}

function readTestFile(file: string): PolicyTestFile {
  const fail = (message: string, line?: number, field?: string): CountersignError =>
    new CountersignError(
      "config_error",
      "policy",
      formatProblem({
        file,
        ...(line === undefined ? {} : { line }),
        ...(field === undefined ? {} : { field }),
        message,
      }),
      {
        details: { file, ...(field === undefined ? {} : { field }) },
      },
    );
  const read = readTextFile(file);
  if ("problem" in read) throw fail(read.problem);
  const parsed = parseToml(read.text);
  if (parsed.problem !== undefined) throw fail(parsed.problem.message, parsed.problem.line);
  const result = PolicyTestFile.safeParse(parsed.value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map((p) => (typeof p === "number" ? p : String(p)));
  throw fail(issue.message, lineOf(parsed.lines, path), path.join("."));
}

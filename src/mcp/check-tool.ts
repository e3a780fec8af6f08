import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { checkProgram } from "../app/index.js";
import { CountersignError, Diagnostic, GuaranteeStatus, type AskAdvice, type CheckResult } from "../model/index.js";
import type { McpDeps } from "./deps.js";
import { ProgramArgs, toolArgs } from "./program-input.js";
import { errorResult, Next, ToolError, toolResult } from "./tool-result.js";

const Line = { line: z.number().int(), column: z.number().int() };

/** What check_program answers. Optional fields: an error result carries only `error` and `next`. */
export const CheckOutput = {
  ok: z
    .boolean()
    .optional()
    .describe("false: the analysis refuses the program (see diagnostics and refuted guarantees)"),
  decision: z.enum(["auto_approved", "auto_rejected", "ask"]).optional(),
  reason: z.string().optional(),
  effects: z
    .array(
      z.object({
        op: z.string(),
        ...Line,
        verdict: z.enum(["allow", "ask", "deny"]),
        rule: z.string().nullable(),
        why: z.string(),
      }),
    )
    .optional(),
  guarantees: z
    .array(
      z.object({
        text: z.string(),
        status: GuaranteeStatus,
        why: z.string(),
        line: z.number().int().optional(),
        column: z.number().int().optional(),
      }),
    )
    .optional(),
  diagnostics: z.array(Diagnostic).optional(),
  summary: z.array(z.string()).optional(),
  checked_by: z
    .enum(["authority", "local"])
    .optional()
    .describe(
      "authority: the policy in force at the authority decided. local: no authority was reachable, so this machine's policy files and manifests decided (remembered approvals not included); the authority may decide otherwise, and run_program needs it",
    ),
  error: ToolError.optional(),
  next: Next,
};

const NEXT = {
  refused:
    "The analysis refuses this program: fix each diagnostic and refuted guarantee at its line, then call check_program again. Do not run it.",
  auto_rejected:
    "The policy would deny this program and run_program will refuse it: change what it does (see the effects with verdict deny and their why), then check again.",
  ask: "A person would be asked before it runs (each effect's rule and why say what asks): call run_program and tell the user their approval is needed.",
  auto_approved: "The policy would approve this program at once: call run_program with the same text.",
} as const;

/**
 * What to do about a program a person would be asked about: which rule asks about which call, and
 * either that guarantees could help (then which) or that none the program could add would change it.
 */
export function askNext(advice: AskAdvice): string {
  const asks = advice.asks.map(
    (a) =>
      `line ${a.line} ${a.op}: ${a.rule === null ? "no rule allows it, the policy's default asks" : `rule "${a.rule}" asks`} (${a.reason})`,
  );
  const head = `A person would be asked before it runs: ${asks.join("; ")}.`;
  const stuck = advice.asks.filter((a) => !a.guarantee_could_help);
  if (stuck.length > 0) {
    const which = stuck.map((a) => `${a.op} at line ${a.line}`).join(", ");
    return `${head} No guarantee the program could add would change this for ${which}: call run_program and tell the user their approval is needed, or change what the program does.`;
  }
  return `${head} A guarantee bounding these calls' arguments or count (e.g. recipientsOnly([...]), writesUnder(dir) or { op, count: { max } }) could let it run without asking: add it and check again. Or call run_program and tell the user their approval is needed.`;
}

/** Said before `next` when the check ran here: what it is worth, and that running needs the authority. */
const LOCAL =
  "Checked locally: no authority is reachable, so this machine's policy files and manifests decided; the authority's policy in force (with the approvals it remembers) may decide otherwise. run_program will fail until an authority runs (ask the user to start one: `countersign serve`). ";

/**
 * `check_program`: the facts and the policy's decision, recording nothing. At the authority (the
 * policy in force there); with none reachable, here with the local policy files and manifests,
 * labelled `checked_by: "local"`, as `countersign check` falls back. Any other failure (a refused
 * token, bad arguments) is an error result.
 */
export function registerCheckTool(server: McpServer, { ctx, authority }: McpDeps): void {
  server.registerTool(
    "check_program",
    {
      title: "Check a program",
      description:
        "Analyze a program and say what the policy would decide, without running or submitting it: each trusted call with its line and the policy's verdict and reason, each guarantee's status (proven, enforced at run time, refuted), diagnostics with lines, a summary. " +
        "decision auto_approved: run it with run_program. ask: a person must approve; next names the rules that ask and whether a guarantee could avoid it. auto_rejected or ok false: change the program; running it will be refused. " +
        "checked_by local: no authority was reachable and this machine's policy decided; running needs the authority.",
      inputSchema: toolArgs(ProgramArgs),
      outputSchema: CheckOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ program, file_name, manifests }, { signal }) => {
      const agent = manifests === undefined || manifests.length === 0 ? {} : { manifests };
      try {
        return checkResult(await authority().check({ program, source_name: file_name, ...agent }, signal), "authority");
      } catch (err) {
        if (!noAuthority(err))
          return errorResult(
            err,
            "No check was made: fix what the error says (the arguments, or the token the authority refused).",
          );
      }
      // As `countersign check` does with no authority listening: the same analysis and policy, here, and said so.
      try {
        return checkResult(await checkProgram(ctx, { source: program, entry: file_name, ...agent }, null), "local");
      } catch (err) {
        return errorResult(
          err,
          "No check was made, here or at an authority (none is reachable): fix what the error says, or ask the user to start one (`countersign serve`).",
        );
      }
    },
  );
}

/**
 * None configured, or nothing answers where one is: the client's own config_error (an authority's own errors come from
 * its boundary).
 */
function noAuthority(err: unknown): boolean {
  return err instanceof CountersignError && err.class === "config_error" && err.boundary === "cli";
}

function checkResult({ facts, decision, advice }: CheckResult, checkedBy: "authority" | "local") {
  const next = !facts.ok
    ? NEXT.refused
    : decision.kind === "ask" && advice !== undefined
      ? askNext(advice)
      : NEXT[decision.kind];
  return toolResult(
    {
      ok: facts.ok,
      decision: decision.kind,
      reason: decision.reason,
      effects: decision.effects.map((e) => ({
        op: e.op,
        line: e.site.line,
        column: e.site.column,
        verdict: e.verdict,
        rule: e.rule,
        why: e.why,
      })),
      guarantees: facts.guarantees.map((g) => ({
        text: g.text,
        status: g.status,
        why: g.why,
        ...(g.site === undefined ? {} : { line: g.site.line, column: g.site.column }),
      })),
      diagnostics: facts.diagnostics,
      summary: facts.summary,
      checked_by: checkedBy,
      next: (checkedBy === "local" ? LOCAL : "") + next,
    },
    !facts.ok,
  );
}

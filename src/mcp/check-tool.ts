import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { Diagnostic, GuaranteeStatus, type CheckResult } from "../model/index.js";
import type { McpDeps } from "./deps.js";
import { ProgramArgs } from "./program-input.js";
import { errorResult, Next, ToolError, toolResult } from "./tool-result.js";

const Line = { line: z.number().int(), column: z.number().int() };

/** What check_program answers. Optional fields: an error result carries only `error` and `next`. */
export const CheckOutput = {
  ok: z.boolean().optional().describe("false: the analysis refuses the program (see diagnostics and refuted guarantees)"),
  decision: z.enum(["auto_approved", "auto_rejected", "ask"]).optional(),
  reason: z.string().optional(),
  effects: z.array(z.object({ op: z.string(), ...Line, verdict: z.enum(["allow", "ask", "deny"]), rule: z.string().nullable(), why: z.string() })).optional(),
  guarantees: z.array(z.object({ text: z.string(), status: GuaranteeStatus, why: z.string(), line: z.number().int().optional(), column: z.number().int().optional() })).optional(),
  diagnostics: z.array(Diagnostic).optional(),
  summary: z.array(z.string()).optional(),
  error: ToolError.optional(),
  next: Next,
};

const NEXT = {
  refused: "The analysis refuses this program: fix each diagnostic and refuted guarantee at its line, then call check_program again. Do not run it.",
  auto_rejected: "The policy would deny this program and run_program will refuse it: change what it does (see the effects with verdict deny and their why), then check again.",
  ask: "A person would be asked before it runs. To run without asking, make the program promise less: add guarantees the analysis can prove (e.g. recipientsOnly([...]) or { op, count: { max } }) or use constant arguments, then check again. Or call run_program and tell the user their approval is needed.",
  auto_approved: "The policy would approve this program at once: call run_program with the same text.",
} as const;

/** `check_program`: the facts and the policy's decision, recording nothing. */
export function registerCheckTool(server: McpServer, { authority }: McpDeps): void {
  server.registerTool(
    "check_program",
    {
      title: "Check a program",
      description:
        "Analyze a program and say what the policy would decide, without running or submitting it: each trusted call with its line and the policy's verdict and reason, each guarantee's status (proven, enforced at run time, refuted), diagnostics with lines, a summary. " +
        "decision auto_approved: run it with run_program. ask: a person must approve; strengthen the guarantees or narrow the arguments and check again to avoid asking. auto_rejected or ok false: change the program; running it will be refused.",
      inputSchema: ProgramArgs,
      outputSchema: CheckOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ program, file_name }, { signal }) => {
      try {
        return checkResult(await authority().check({ program, source_name: file_name }, signal));
      } catch (err) {
        return errorResult(err, "No check was made. If no authority is reachable, ask the user to start one (`countersign serve`); otherwise fix the arguments.");
      }
    },
  );
}

function checkResult({ facts, decision }: CheckResult) {
  return toolResult(
    {
      ok: facts.ok,
      decision: decision.kind,
      reason: decision.reason,
      effects: decision.effects.map((e) => ({ op: e.op, line: e.site.line, column: e.site.column, verdict: e.verdict, rule: e.rule, why: e.why })),
      guarantees: facts.guarantees.map((g) => ({ text: g.text, status: g.status, why: g.why, ...(g.site === undefined ? {} : { line: g.site.line, column: g.site.column }) })),
      diagnostics: facts.diagnostics,
      summary: facts.summary,
      next: facts.ok ? NEXT[decision.kind] : NEXT.refused,
    },
    !facts.ok,
  );
}

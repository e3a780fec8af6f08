import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { runAgentProgram, RunOutcome, type RunEvent, type RunReport } from "../app/index.js";
import { DEFAULT_DEADLINE_SECONDS, Json, MAX_RATIONALE_CHARS, toEnvelope } from "../model/index.js";
import type { McpDeps } from "./deps.js";
import { ProgramArgs, TimeoutArg } from "./program-input.js";
import { Next, ToolError, toolResult } from "./tool-result.js";

/** What run_program answers: the outcome, and the fields that outcome has. */
export const RunOutput = {
  outcome: RunOutcome.optional(),
  request_id: z.string().optional(),
  decision: z.string().optional().describe("auto_approved, approved_once, approved_remember; or how it was refused"),
  policy_reason: z.string().optional(),
  receipt_id: z.string().optional(),
  calls: z.array(z.object({ op: z.string(), status: z.string(), error: ToolError.optional() })).optional(),
  value: Json.optional().describe("what main returned (null unless plain data)"),
  logs: z.array(z.object({ stream: z.string(), text: z.string() })).optional(),
  thrown: z.object({ name: z.string(), message: z.string() }).optional(),
  diagnostics: z.array(z.object({ line: z.number().int(), column: z.number().int(), code: z.string(), message: z.string() })).optional(),
  rejected: z.literal(true).optional(),
  reason: z.string().optional(),
  approver: z.enum(["policy", "person"]).optional(),
  request_more: z.literal(true).optional(),
  feedback: z.string().optional(),
  error: ToolError.optional(),
  next: Next,
};

const NEXT: Record<RunOutcome, string> = {
  executed: "The program ran; its trusted calls and return value are above. Report the result to the user.",
  refused: "The analysis refused the program and nothing was submitted: fix the diagnostics (call check_program for details) and run again.",
  unavailable: "Nothing ran: no authority is reachable or it refused this server's token. Ask the user to start one (`countersign serve`) or fix the configuration; do not retry in a loop.",
  denied: "Nothing ran. Do not resubmit the same program: change what it does in the light of the reason, or tell the user it was refused.",
  request_more: "Nothing ran. The approver asks for changes: revise the program as the feedback says, check it, and call run_program again.",
  expired: "Nothing ran: no decision came in time and the request was withdrawn. End the turn and tell the user the program waits for their approval; run it again when they say so.",
  failed: "The run did not finish: see the calls, error and thrown fields. Trusted calls with status done have happened and must not be repeated blindly.",
  cancelled: "The run was cancelled; a pending request was withdrawn and nothing ran after that.",
};

/** `run_program`: a thin adapter over the runAgentProgram use case. */
export function registerRunTool(server: McpServer, { ctx, authority }: McpDeps): void {
  server.registerTool(
    "run_program",
    {
      title: "Run a program",
      description:
        "Submit a program to the authority, wait for its decision, and run it in the sandbox with every trusted call checked against the receipt. " +
        "Check it with check_program first. When the policy asks, a person is asked and this call waits (progress notifications say how long) until they decide or timeout_seconds pass; " +
        "if it expires, end the turn and wait for the user. Results: executed (calls made, main's return value); rejected (reason, approver: do not resubmit unchanged); " +
        "request_more (feedback: revise the program and resubmit); refused (fix the diagnostics); unavailable (no authority: ask the user to start one).",
      inputSchema: { ...ProgramArgs, rationale: z.string().max(MAX_RATIONALE_CHARS).optional().describe("Why you want to run it, for the person who approves it."), timeout_seconds: TimeoutArg.default(DEFAULT_DEADLINE_SECONDS).describe("How long to wait for a person (seconds); then the request is withdrawn.") },
      outputSchema: RunOutput,
      annotations: { destructiveHint: true, readOnlyHint: false, idempotentHint: false, openWorldHint: true },
    },
    async ({ program, file_name, manifests, rationale, timeout_seconds }, extra) => {
      let client;
      try {
        client = authority();
      } catch (err) {
        return toolResult(runResult({ outcome: "unavailable", error: toEnvelope(err, "cli").error }), true); // as when one is configured but does not answer
      }
      const token = extra._meta?.progressToken;
      let step = 0;
      const onProgress = (event: RunEvent) => {
        if (token === undefined) return;
        step += 1;
        extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: step, message: progressMessage(event) } }).catch(() => undefined);
      };
      const report = await runAgentProgram(
        ctx,
        {
          source: program,
          entry: file_name,
          timeoutSeconds: timeout_seconds,
          ...(rationale === undefined ? {} : { rationale }),
          ...(manifests === undefined || manifests.length === 0 ? {} : { manifests }),
        },
        { client, onProgress, signal: extra.signal },
      );
      return toolResult(runResult(report), report.outcome !== "executed");
    },
  );
}

/** One progress line. Never the review link: it is the approver's way in, not the agent's. */
function progressMessage(event: RunEvent): string {
  switch (event.type) {
    case "checked":
      return `checked: ${event.check.effects} trusted calls, ${event.check.guarantees} guarantees (${event.check.proven} proven, ${event.check.enforced} enforced at run time)`;
    case "decided":
      return event.policy.decision === "ask" ? `request ${event.request.id}: a person is being asked to approve it (${event.policy.reason})` : `request ${event.request.id}: ${event.policy.decision} (${event.policy.reason})`;
    case "waiting":
      return `waiting for a person to decide: ${Math.floor(event.elapsed_ms / 1000)} s elapsed`;
    case "approved":
      return `approved (${event.approval.decision}): running`;
    case "executed":
      return `executed: ${event.execution.calls.length} trusted calls`;
  }
}

/** The report as the agent sees it: no review link, no preview, nothing only the approver may see. */
export function runResult(report: RunReport): z.infer<z.ZodObject<typeof RunOutput>> {
  const { outcome, request, policy, decision, approval, execution, check, error } = report;
  const refusedBy = decision?.kind === "auto_rejected" ? "policy" : "person";
  return {
    outcome,
    ...(request === undefined ? {} : { request_id: request.id }),
    ...(approval !== undefined ? { decision: approval.decision, receipt_id: approval.jti } : decision !== undefined ? { decision: decision.kind } : {}),
    ...(policy === undefined ? {} : { policy_reason: policy.reason }),
    ...(execution === undefined
      ? {}
      : {
          calls: execution.calls.map((c) => ({ op: c.op, status: c.status, ...(c.error === undefined ? {} : { error: c.error }) })),
          value: execution.value,
          logs: execution.logs,
          ...(execution.thrown === undefined ? {} : { thrown: { name: execution.thrown.name, message: execution.thrown.message } }),
        }),
    ...(check?.ok === false
      ? {
          diagnostics: [
            ...check.diagnostics.map((d) => ({ line: d.line, column: d.column, code: d.code, message: d.message })),
            ...check.refuted.map((g) => ({ line: g.site?.line ?? 1, column: g.site?.column ?? 1, code: "refuted_guarantee", message: `${g.text}: ${g.why}` })),
          ],
        }
      : {}),
    ...(outcome === "denied" ? { rejected: true as const, reason: decision?.reason ?? policy?.reason ?? "none given", approver: refusedBy } : {}),
    ...(outcome === "request_more" ? { request_more: true as const, feedback: decision?.feedback ?? "" } : {}),
    ...(error === undefined ? {} : { error: { class: error.class, message: error.message } }),
    ...(execution?.limit === undefined ? {} : { error: { class: execution.limit.class, message: execution.limit.message } }),
    next: NEXT[outcome],
  };
}

import { connectorContext } from "../config/index.js";
import {
  callAgentAction,
  callWithReceipt,
  createPluginPool,
  type ConnectorContext,
  type CredentialRefresh,
} from "../connector/index.js";
import type { ManifestSet } from "../manifest/index.js";
import type { AgentManifestSource, CheckResult, Json, PolicyDecision, ResultPart } from "../model/index.js";
import {
  CountersignError,
  DEFAULT_DEADLINE_SECONDS,
  programBytes,
  toEnvelope,
  type ProgramBytes,
} from "../model/index.js";
import { verifyReceipt, type VerifiedReceipt } from "../receipt/index.js";
import type { RunResult, SandboxLimits } from "../sandbox/index.js";
import type { AuthorityClient, DecisionAnswer, PolicyView, RequestView } from "./authority-client.js";
import type { AppContext } from "./context.js";
import { manifestsFor } from "./manifests-for.js";
import type { CheckSummary, Execution, RunEvent, RunOutcome, RunReport } from "./run-report.js";

/** The program an agent asks to run, and how long it may wait for a person. */
export interface RunInput {
  source: Uint8Array | string; // the exact bytes: what is hashed, approved and run
  entry: string; // its file name, for messages and the receipt
  rationale?: string; // the agent's words beside the program's own
  timeoutSeconds?: number; // the request's deadline: how long a person has to decide (default 15 min)
  // How long this call waits for the decision (default: timeoutSeconds; for a resumed request,
  // until its deadline). 0: not at all. A request still pending then ends the run as `pending`
  // (or is withdrawn, with RunOptions.withdrawOnGiveUp).
  waitSeconds?: number;
  // Run this earlier request of the same submitter instead of submitting the program again: the
  // source must be its program, byte for byte; it runs once approved, and only once.
  resume?: string;
  // the agent's own action manifests (trusted/agent), submitted with the program and run with it
  manifests?: AgentManifestSource[];
  limits?: Partial<SandboxLimits>;
}

export interface RunOptions {
  client: AuthorityClient;
  onProgress?: (event: RunEvent) => void;
  signal?: AbortSignal; // gives up: nothing runs after it (a pending request stays pending unless withdrawOnGiveUp)
  // Withdraw a request that is still pending when the wait ends or `signal` aborts. Off by
  // default: a request outlives the call that stopped waiting for it, to be resumed (or withdrawn
  // as an act of its own).
  withdrawOnGiveUp?: boolean;
  connectors?: ConnectorContext; // default: the data directory's connections, with plugins loaded for this run
  session?: string; // the agent's MCP session, recorded with what the run gives it back
}

/** How a request that was not approved ends the run. */
const FINAL: Partial<Record<DecisionAnswer["status"], RunOutcome>> = {
  rejected: "denied",
  request_more: "request_more",
  expired: "expired",
  withdrawn: "expired",
};

/** Why a request cannot be resumed (the `invalid` outcome), as `details.reason` of its error. */
const NOT_RESUMABLE = new Set(["not_found", "program_mismatch", "manifests_mismatch", "already_run"]);

/** How often a waiting run says how long it has waited. */
const PROGRESS_MS = 1000;
/** The longest long poll the authority holds. */
const MAX_POLL_SECONDS = 60;

/**
 * The whole flow of `countersign run`: check the program (refused programs stop here), submit it
 * (or, with `resume`, take up an earlier request of the same program), wait for a person when the
 * policy asks (a request still pending when the wait ends is the `pending` outcome, or withdrawn
 * with `withdrawOnGiveUp`), verify the receipt against the exact bytes and redeem it once, then
 * run `main` in the sandbox with every trusted call admitted by the receipt first. Nothing runs
 * without a receipt that verified and redeemed. Every way the run ends is a report, never an
 * exception.
 */
export async function runAgentProgram(ctx: AppContext, input: RunInput, options: RunOptions): Promise<RunReport> {
  const report: RunReport = { outcome: "failed" };
  const emit = options.onProgress ?? (() => undefined);
  try {
    report.outcome = await flow(ctx, input, options, report, emit);
  } catch (err) {
    if (options.signal?.aborted === true) {
      report.outcome = "cancelled"; // the caller's own doing: not an error to report
      return report;
    }
    report.error = toEnvelope(err, "cli").error;
    report.outcome = outcomeOfError(err);
  }
  return report;
}

async function flow(
  ctx: AppContext,
  input: RunInput,
  options: RunOptions,
  report: RunReport,
  emit: (e: RunEvent) => void,
): Promise<RunOutcome> {
  const { client, signal } = options;
  const program = programBytes(input.source);
  if (program.text === undefined) {
    report.check = {
      ok: false,
      effects: 0,
      guarantees: 0,
      proven: 0,
      enforced: 0,
      diagnostics: [
        { severity: "error", code: "invalid_program", message: "the program is not valid UTF-8", line: 1, column: 1 },
      ],
      refuted: [],
      summary: [],
    };
    return "refused";
  }
  // The agent manifests as this runner holds them: checked here before anything is sent, and the
  // set whose hash the receipt must carry (exactly the manifests submitted below).
  const set = manifestsFor(ctx.manifests(), ctx.dataDir, input.manifests);
  if (input.resume !== undefined) return resume(ctx, input, input.resume, options, report, emit, program, set);
  const manifests = input.manifests === undefined || input.manifests.length === 0 ? {} : { manifests: input.manifests };
  // The sandbox thread loads its modules while the program is checked and submitted.
  import("../sandbox/sandbox-thread.js")
    .then(({ warmThread }) => warmThread(input.limits?.memoryBytes))
    .catch(() => undefined);
  const checked = await client.check({ program: program.text, source_name: input.entry, ...manifests }, signal);
  report.check = summarizeCheck(checked);
  emit({ type: "checked", check: report.check });
  if (!report.check.ok) return "refused";

  const timeoutSeconds = input.timeoutSeconds ?? DEFAULT_DEADLINE_SECONDS;
  const submitted = await client.submit(
    {
      program: program.text,
      source_name: input.entry,
      timeout_s: timeoutSeconds,
      ...manifests,
      ...(input.rationale === undefined ? {} : { rationale: input.rationale }),
    },
    signal,
  );
  // The sandbox for this program is built while the decision, the receipt and its redemption are
  // on their way (a person's approval, or two round trips): the run then only evaluates main.
  // A failure here is met again, and reported, by the run.
  const waits = input.waitSeconds ?? timeoutSeconds;
  if (submitted.status !== "rejected" && (submitted.status !== "pending" || waits > 0))
    prepareSandbox(program, input, set).catch(() => undefined);
  let receipt: string;
  if (submitted.status === "pending") {
    report.request = { id: submitted.id, review_url: submitted.review_url };
    const answer = await waitForDecision(client, submitted.id, waits, report, emit, options);
    if (answer === undefined) return options.withdrawOnGiveUp === true ? "expired" : "pending";
    const ended = notApproved(answer, report);
    if (ended !== undefined) return ended;
    receipt = answer.receipt!;
  } else {
    report.request = { id: submitted.id };
    report.policy = policyLine(submitted.decision);
    emit({ type: "decided", policy: report.policy, request: report.request });
    if (submitted.status === "rejected") {
      report.decision = { kind: submitted.decision.kind, reason: submitted.decision.reason, feedback: null };
      return "denied";
    }
    receipt = submitted.receipt;
  }
  return runApproved(ctx, input, options, report, emit, receipt, program.bytes, set, checked.facts.result?.parts);
}

/**
 * Take up an earlier request: the source must be its program (nothing is submitted or checked
 * again, the policy's verdict is the request's); wait for its decision as a new run would, at most
 * until its deadline; then run it with the receipt its approval gives, once.
 */
async function resume(
  ctx: AppContext,
  input: RunInput,
  id: string,
  options: RunOptions,
  report: RunReport,
  emit: (e: RunEvent) => void,
  program: ProgramBytes,
  set: ManifestSet,
): Promise<RunOutcome> {
  const { client, signal } = options;
  let view: RequestView;
  try {
    view = await client.request(id, signal);
  } catch (err) {
    if (err instanceof CountersignError && err.details?.reason === "not_found")
      throw notResumable(
        id,
        "not_found",
        `no request ${id} of this submitter is known to the authority at ${client.url}`,
      );
    throw err;
  }
  report.request = { id };
  report.policy = policyLine(view.policy);
  if (view.program.sha256 !== program.sha256) {
    throw notResumable(
      id,
      "program_mismatch",
      `${input.entry} is not the program of request ${id}: its bytes hash to ${program.sha256}, the request's program to ${view.program.sha256}. Nothing ran; resume with the exact file that was submitted, or submit this one anew`,
    );
  }
  // Found now rather than after a person approved: the receipt binds the agent manifests, and a
  // run holding others would spend the approval on a refusal.
  const held = set.agent?.sha256 ?? null;
  const bound = view.agent_manifests === undefined ? held : (view.agent_manifests?.sha256 ?? null);
  if (held !== bound) {
    const which =
      bound === null
        ? "without agent manifests, and this run holds some"
        : held === null
          ? "with agent manifests this run does not hold"
          : "with other agent manifests than this run holds";
    throw notResumable(
      id,
      "manifests_mismatch",
      `request ${id} was submitted ${which}. Nothing ran; resume with exactly the manifests it was submitted with, or submit anew`,
    );
  }
  const left = Math.floor((Date.parse(view.deadline_at) - ctx.now().getTime()) / 1000);
  if (view.status === "pending" && left <= 0) {
    // Past its deadline, about to be expired by the authority's sweep: no approval can come for it.
    report.decision = { kind: "expired", reason: null, feedback: null };
    return "expired";
  }
  const waits = Math.max(0, Math.min(input.waitSeconds ?? left, left));
  if (view.status === "pending" && waits > 0) prepareSandbox(program, input, set).catch(() => undefined);
  let answer: DecisionAnswer | undefined;
  try {
    answer = await waitForDecision(client, id, waits, report, emit, options);
  } catch (err) {
    // The only conflict an approved request meets is its receipt redeemed already: one request, one run.
    if (err instanceof CountersignError && err.boundary === "authority" && err.details?.reason === "conflict") {
      throw notResumable(
        id,
        "already_run",
        `request ${id} has run already: its receipt was redeemed, and an approval runs its program once. To run it again, submit it anew (without --resume)`,
      );
    }
    throw err;
  }
  if (answer === undefined) return options.withdrawOnGiveUp === true ? "expired" : "pending";
  const ended = notApproved(answer, report);
  if (ended !== undefined) return ended;
  // The request keeps no facts for its submitter: what the value's parts come from is the analysis's word on these
  // bytes.
  const manifests = input.manifests === undefined || input.manifests.length === 0 ? {} : { manifests: input.manifests };
  const { facts } = await client.check(
    { program: program.text!, source_name: view.program.entry, ...manifests },
    signal,
  );
  return runApproved(
    ctx,
    { ...input, entry: view.program.entry },
    options,
    report,
    emit,
    answer.receipt!,
    program.bytes,
    set,
    facts.result?.parts,
  );
}

/** A request that cannot be resumed: the `invalid` outcome, nothing run. */
function notResumable(
  id: string,
  reason: "not_found" | "program_mismatch" | "manifests_mismatch" | "already_run",
  message: string,
): CountersignError {
  return new CountersignError("usage_error", "cli", message, { requestId: id, details: { reason } });
}

/** The outcome of a decision that is not an approval with its receipt; undefined for one that is. */
function notApproved(answer: DecisionAnswer, report: RunReport): RunOutcome | undefined {
  if (answer.status === "approved" && answer.receipt !== undefined) return undefined;
  report.decision = answer.decision ?? { kind: answer.status, reason: null, feedback: null };
  return FINAL[answer.status] ?? "failed";
}

/** Verify and redeem the receipt, then run main: the part of a run that follows an approval. */
async function runApproved(
  ctx: AppContext,
  input: RunInput,
  options: RunOptions,
  report: RunReport,
  emit: (e: RunEvent) => void,
  receipt: string,
  bytes: Uint8Array,
  set: ManifestSet,
  provenance: ResultPart[] | undefined,
): Promise<RunOutcome> {
  const { signal } = options;
  if (signal?.aborted === true) return "cancelled"; // before the receipt is spent
  const verified = await redeemAtAuthority(ctx, options.client, receipt, bytes, set);
  const { claims } = verified;
  report.approval = {
    decision: claims.decision,
    jti: claims.jti,
    expires_in_s: claims.exp - Math.floor(ctx.now().getTime() / 1000),
    ...(claims.approver === undefined ? {} : { approver: claims.approver }),
  };
  emit({ type: "approved", approval: report.approval });

  report.execution = await recorded(
    options,
    report.request!.id,
    await execute(ctx, input, options, verified, bytes, set, provenance),
  );
  emit({ type: "executed", execution: report.execution });
  if (options.signal?.aborted === true) return "cancelled"; // stopped where it was: the calls it made are in the report
  const { outcome, refused } = report.execution;
  return outcome === "returned" && refused === 0 ? "executed" : "failed";
}

/**
 * What the agent may see of the run: its output goes to the authority first, which keeps what is
 * untrusted of it against the agent's later programs. Output the authority did not take (it is
 * unreachable, or refuses it) is not shown: the value is dropped and the logs and the error's
 * message withheld, never handed to an agent the authority knows nothing of.
 */
async function recorded({ client, session }: RunOptions, id: string, execution: Execution): Promise<Execution> {
  const output = {
    value: execution.value,
    logs: execution.logs,
    ...(execution.thrown === undefined
      ? {}
      : { thrown: { name: execution.thrown.name, message: execution.thrown.message } }),
    ...(session === undefined ? {} : { session }),
  };
  try {
    const shown = await client.output(id, output);
    return {
      ...execution,
      value: shown.value,
      logs: shown.logs,
      ...(execution.thrown === undefined || shown.thrown === undefined
        ? {}
        : { thrown: { ...execution.thrown, message: shown.thrown.message } }),
    };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    const { value_provenance: _, ...rest } = execution;
    return {
      ...rest,
      value: null,
      ...(execution.value === null && execution.value_dropped !== undefined
        ? {}
        : { value_dropped: { reason: "not_recorded" as const, why } }),
      logs: [],
      ...(execution.thrown === undefined
        ? {}
        : { thrown: { ...execution.thrown, message: "(withheld: the authority did not record the run's output)" } }),
    };
  }
}

/**
 * Long-poll the request until a person decides it or `waitSeconds` pass (0: one look, no wait).
 * Undefined: still pending when the wait ended. With `withdrawOnGiveUp` the request is withdrawn
 * then, and when `signal` aborts, so that no approval can come for a run that is no longer
 * waiting; without it the request stays pending for a later resume.
 */
async function waitForDecision(
  client: AuthorityClient,
  id: string,
  waitSeconds: number,
  report: RunReport,
  emit: (e: RunEvent) => void,
  options: RunOptions,
): Promise<DecisionAnswer | undefined> {
  const { signal } = options;
  const giveUp = options.withdrawOnGiveUp === true;
  const started = Date.now();
  const deadline = started + waitSeconds * 1000;
  const reviewUrl = report.request?.review_url === undefined ? {} : { review_url: report.request.review_url };
  const waiting = () => emit({ type: "waiting", elapsed_ms: Date.now() - started, ...reviewUrl });
  let ticker: ReturnType<typeof setInterval> | undefined;
  try {
    let answer = await client.decision(id, 0, signal);
    report.policy = policyLine(answer.policy);
    emit({ type: "decided", policy: report.policy, request: report.request! });
    if (answer.status === "pending" && waitSeconds > 0) {
      ticker = setInterval(waiting, PROGRESS_MS);
      waiting();
    }
    while (answer.status === "pending") {
      const left = deadline - Date.now();
      if (left <= 0) {
        if (giveUp) await withdraw(client, id);
        return undefined;
      }
      answer = await client.decision(id, Math.min(MAX_POLL_SECONDS, Math.ceil(left / 1000)), signal);
    }
    return answer;
  } catch (err) {
    if (signal?.aborted === true && giveUp) await withdraw(client, id);
    throw err;
  } finally {
    clearInterval(ticker);
  }
}

/**
 * Withdraw a request nobody waits for any more. A person who decided in the meantime wins: the run still does not go
 * on.
 */
async function withdraw(client: AuthorityClient, id: string): Promise<void> {
  await client.withdraw(id).catch(() => undefined);
}

/**
 * Verify the receipt against the authority's keys, the exact bytes about to run and the agent
 * manifests the run holds (a receipt issued for others, or for none, is refused), then redeem it
 * at the authority: exactly once across every runner, and only after it verified (so a forged or
 * mismatched receipt spends nothing).
 */
async function redeemAtAuthority(
  ctx: AppContext,
  client: AuthorityClient,
  receipt: string,
  bytes: Uint8Array,
  set: ManifestSet,
): Promise<VerifiedReceipt> {
  const agentManifests = set.agent === undefined ? {} : { agentManifests: set.agent.sha256 };
  const verified = await verifyReceipt(receipt, {
    jwks: await client.jwks(),
    issuer: ctx.issuer,
    programBytes: bytes,
    now: ctx.now(),
    ...agentManifests,
  });
  await client.redeem(verified.claims.jti, verified.claims.exp);
  return verified;
}

async function prepareSandbox(program: ProgramBytes, input: RunInput, set: ManifestSet): Promise<void> {
  const { prepareRun, sandboxApi } = await import("../sandbox/index.js");
  prepareRun({
    source: program.bytes,
    sha256: program.sha256,
    entry: input.entry,
    api: sandboxApi(set),
    ...(input.limits === undefined ? {} : { limits: input.limits }),
  });
}

/**
 * Run main in the sandbox, each trusted call admitted by the receipt before its connector acts;
 * an agent action (trusted/agent) goes through callAgentAction, each of its steps admitted alike.
 */
async function execute(
  ctx: AppContext,
  input: RunInput,
  options: RunOptions,
  verified: VerifiedReceipt,
  bytes: Uint8Array,
  set: ManifestSet,
  provenance: ResultPart[] | undefined,
): Promise<Execution> {
  // Loaded here: the sandbox brings the compiler (to transpile) and QuickJS, which nothing else
  // importing the use cases (the authority among them) needs.
  const { runProgram, sandboxApi } = await import("../sandbox/index.js");
  const own = options.connectors === undefined ? createPluginPool() : undefined;
  const connectors =
    options.connectors ?? connectorContext(ctx.dataDir, { plugins: own!, now: ctx.now, audit: auditRefresh(ctx) });
  try {
    const result = await runProgram({
      source: bytes,
      sha256: verified.claims.program.sha256,
      entry: input.entry,
      api: sandboxApi(set),
      invoke: (op, args) =>
        (set.agent?.actions.has(op) === true ? callAgentAction : callWithReceipt)(verified, set, op, args, connectors),
      readHandle: (id) => heldValue(options.client, id, options.signal),
      ...(input.limits === undefined ? {} : { limits: input.limits }),
      ...(options.signal === undefined ? {} : { signal: options.signal }), // Ctrl-C stops the program wherever it is
    });
    return executionOf(result, provenance);
  } finally {
    await own?.close();
  }
}

/** Record an OAuth refresh of the run's connectors in the audit of this machine's store. */
function auditRefresh(ctx: AppContext): (refresh: CredentialRefresh) => Promise<void> {
  return async (refresh) =>
    void (await (await ctx.store()).recordAudit({ type: "credential_refreshed", actor: "runner", ...refresh }));
}

/**
 * A quarantined result's value, as the authority gives it to this submitter. A handle it does not
 * give (another agent's, expired, never held) fails the program's fromHandle, with the reason.
 */
async function heldValue(client: AuthorityClient, id: string, signal: AbortSignal | undefined): Promise<Json> {
  try {
    return (await client.handle(id, signal)).value;
  } catch (err) {
    if (err instanceof CountersignError && err.details?.reason === "not_found") {
      throw new CountersignError(
        "usage_error",
        "sandbox",
        `fromHandle: handle ${id} is not held for this agent (never given to it, or expired)`,
        { details: { reason: "unknown_handle", handle: id } },
      );
    }
    throw err;
  }
}

function executionOf(result: RunResult, provenance: ResultPart[] | undefined): Execution {
  return {
    outcome: result.outcome,
    value: result.value,
    ...(result.valueDropped === undefined ? {} : { value_dropped: result.valueDropped }),
    ...(result.value === null || provenance === undefined ? {} : { value_provenance: provenance }),
    ...(result.thrown === undefined
      ? {}
      : {
          thrown: {
            name: result.thrown.name,
            message: result.thrown.message,
            ...(result.thrown.class === undefined ? {} : { class: result.thrown.class }),
          },
        }),
    ...(result.limit === undefined ? {} : { limit: result.limit.toEnvelope().error }),
    calls: result.calls.map((c) => ({
      op: c.op,
      status: c.status,
      ...(c.error === undefined ? {} : { error: { class: c.error.class, message: c.error.message } }),
    })),
    ...(result.callsOmitted === 0 ? {} : { calls_omitted: result.callsOmitted }),
    refused: result.refused,
    logs: result.logs.map((l) => ({ stream: l.stream, text: l.text })),
    cpu_ms: result.cpuMs,
  };
}

function summarizeCheck({ facts }: CheckResult): CheckSummary {
  const count = (status: string) => facts.guarantees.filter((g) => g.status === status).length;
  return {
    ok: facts.ok,
    effects: facts.effects.length,
    guarantees: facts.guarantees.length,
    proven: count("proven"),
    enforced: count("enforced"),
    diagnostics: facts.diagnostics,
    refuted: facts.guarantees
      .filter((g) => g.status === "refuted")
      .map(({ text, why, site }) => ({ text, why, ...(site === undefined ? {} : { site }) })),
    summary: facts.summary,
  };
}

/**
 * The policy's decision with the rules that made it: the deny rules of a rejection, the asking ones of an ask, the
 * allowing ones of an approval (`default` where none did).
 */
function policyLine(decision: PolicyView | PolicyDecision): NonNullable<RunReport["policy"]> {
  const deciding = { auto_rejected: "deny", ask: "ask", auto_approved: "allow" }[decision.kind];
  const rules = [...new Set(decision.effects.filter((e) => e.verdict === deciding).map((e) => e.rule ?? "default"))];
  return { decision: decision.kind, rules, reason: decision.reason };
}

/** The outcome of a run that stopped on an error rather than on a decision or the program. */
function outcomeOfError(err: unknown): RunOutcome {
  if (!(err instanceof CountersignError)) return "failed";
  switch (err.class) {
    case "analysis_rejected":
      return "refused";
    case "config_error":
    case "credential_error":
    case "network_error":
      return "unavailable";
    case "usage_error": // ours is a bad argument or a request that cannot be resumed; the authority's (an unknown receipt, a conflict) is a run that cannot go on
      if (err.boundary === "cli" && NOT_RESUMABLE.has(String(err.details?.reason))) return "invalid";
      return err.boundary === "cli" ? "unavailable" : "failed";
    case "capability_denied": // the authority refusing the token or the address it was called at: configuration
      return err.boundary === "authority" ? "unavailable" : "failed";
    case "approval_timeout":
      return "expired";
    case "receipt_invalid":
      return err.details?.reason === "expired" ? "expired" : "failed";
    default:
      return "failed";
  }
}

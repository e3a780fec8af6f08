import { createHash } from "node:crypto";
import { readForApproval, type ApprovalRead, type ConnectorContext } from "../connector/index.js";
import { canonicalJson, textSha256 } from "../constraint/index.js";
import type { ManifestSet } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import type { Json, PolicyDecision, PreviewShown, StoredRequest, ValueConstraint } from "../model/index.js";
import type { AppContext } from "./context.js";
import { MAX_PREVIEWS, policyFor, previewPolicy } from "./preview-request.js";
import { previewArgs } from "./preview-args.js";

/**
 * One call an approval binds: a call of a resolved action with a preview (email.send_draft),
 * for one value of what it acts on (the draft id), as the person was shown it: the preview's
 * fields, or unavailable (then no approval can bind it).
 */
export interface BoundCall {
  effect: number;
  op: string;
  line: number;
  args: Record<string, Json>;
  fields: { label: string; value: string }[] | null; // null: not shown (the preview was unavailable)
}

/** What approving a showing binds: its calls, and the digest the approver sends back with the decision. */
export interface ShownBinding {
  sha256: string; // of the canonical JSON of `calls`
  calls: BoundCall[];
  // resolved calls whose reference is only known when the program runs: nothing to bind
  runtime: { op: string; line: number }[];
}

/** Per op, the constraints an approval adds to its grant: the resolved inputs exactly as they were shown. */
export type Bound = ReadonlyMap<string, Record<string, ValueConstraint>>;

/** The resolved calls of a request: those an approval can bind (a known reference) and those it cannot. */
function resolvedCalls(
  request: StoredRequest,
  set: ManifestSet,
): { calls: Omit<BoundCall, "fields">[]; runtime: ShownBinding["runtime"]; unbound: string[] } {
  const calls: Omit<BoundCall, "fields">[] = [];
  const runtime: ShownBinding["runtime"] = [];
  const unbound: string[] = [];
  request.facts.effects.forEach((effect, index) => {
    const action = set.actions.get(effect.op);
    // An agent action's send_draft step is bound too: the preview shows it as its own call.
    if (action?.manifest.resolve === undefined) return;
    const template = action.templates.preview;
    const values = template == null ? undefined : previewArgs(effect.args, template, MAX_PREVIEWS);
    if (values === undefined || values.kind === "too_many")
      unbound.push(
        `${effect.op} at line ${effect.site.line}: ${values === undefined ? "it declares no preview" : `${values.count} possible values, more than can be shown`}`,
      );
    else if (values.kind === "unknown") runtime.push({ op: effect.op, line: effect.site.line });
    else for (const args of values.sets) calls.push({ effect: index, op: effect.op, line: effect.site.line, args });
  });
  return { calls, runtime, unbound };
}

const key = (call: { effect: number; args: Record<string, Json> }) =>
  canonicalJson({ effect: call.effect, args: call.args });
const digest = (calls: readonly BoundCall[]) =>
  createHash("sha256")
    .update(canonicalJson(calls as unknown as Json))
    .digest("hex");

/**
 * What approving this showing binds, from the previews it shows (null: the request has no
 * resolved call). A call whose preview is not among them counts as not shown.
 */
export function shownBinding(
  request: StoredRequest,
  previews: readonly PreviewShown[],
  set: ManifestSet,
): ShownBinding | null {
  const { calls, runtime, unbound } = resolvedCalls(request, set);
  if (calls.length === 0 && runtime.length === 0 && unbound.length === 0) return null;
  const byCall = new Map(previews.map((p) => [key(p), p]));
  const shown = calls.map((call): BoundCall => {
    const preview = byCall.get(key(call));
    return {
      ...call,
      fields:
        preview === undefined || !("fields" in preview)
          ? null
          : preview.fields.map((f) => ({ label: f.label, value: f.value })),
    };
  });
  return { sha256: digest(shown), calls: shown, runtime };
}

/**
 * At approval: the resolved calls read again, checked against what the person was shown
 * (`shown`, the digest of the page's binding), and per op the constraints the receipt's grant
 * gets so that the send carries exactly what was shown. Null when no call can be bound (none, or
 * only references known at run time). Refused when the page showed no binding, a call cannot be
 * read now (an approval would bind content nobody saw), or the content changed since it was shown.
 */
export async function approvalBinding(
  ctx: AppContext,
  request: StoredRequest,
  set: ManifestSet,
  shown: string | undefined,
): Promise<{ sha256: string; bound: Bound } | null> {
  const { calls, unbound } = resolvedCalls(request, set);
  if (unbound.length > 0)
    throw refused(
      request.id,
      `cannot bind what it would send (${unbound.join("; ")}): approve nothing you could not see; reject, or ask for a program that names its drafts`,
      "binding_unreadable",
    );
  if (calls.length === 0) return null;
  if (shown === undefined)
    throw refused(
      request.id,
      "this approval does not say which content it was shown: open the request again and approve what it shows",
      "binding_missing",
    );
  const connector = connectorOf(ctx);
  const policy = await policyFor(ctx, request);
  const readNow = async (call: Omit<BoundCall, "fields">): Promise<ApprovalRead> => {
    if ("problem" in connector) return { ok: false, reason: connector.problem };
    if ("problem" in policy) return { ok: false, reason: policy.problem };
    const effect = request.facts.effects[call.effect]!;
    return readForApproval(
      set,
      call.op,
      call.args,
      connector,
      previewPolicy(policy.policy, set, effect, effect.influencedBy),
    );
  };
  const reads = await Promise.all(calls.map(async (call) => ({ call, read: await readNow(call) })));
  const failed = reads
    .filter((r) => !r.read.ok)
    .map((r) => `${r.call.op} at line ${r.call.line}: ${"reason" in r.read ? r.read.reason : ""}`);
  if (failed.length > 0)
    throw refused(
      request.id,
      `cannot read what the approval would bind (${failed.join("; ")}): look again, or reject`,
      "binding_unreadable",
    );
  const now = reads.map(
    ({ call, read }): BoundCall => ({
      ...call,
      fields: read.ok ? read.fields.map((f) => ({ label: f.label, value: f.value })) : null,
    }),
  );
  const sha256 = digest(now);
  if (sha256 !== shown)
    throw refused(
      request.id,
      "the draft changed since it was shown: look again (the page now shows its new content)",
      "binding_changed",
    );
  const values = new Map<string, Map<string, Json[]>>();
  for (const { call, read } of reads) {
    if (!read.ok) continue;
    const inputs = values.get(call.op) ?? new Map<string, Json[]>();
    values.set(call.op, inputs);
    for (const [input, value] of Object.entries(read.resolved))
      inputs.set(input, [...(inputs.get(input) ?? []), value]);
  }
  const bound = new Map(
    [...values].map(([op, inputs]) => [
      op,
      Object.fromEntries([...inputs].map(([input, list]) => [input, boundConstraint(request.id, input, list)])),
    ]),
  );
  return { sha256, bound };
}

/**
 * The constraint that holds of exactly the values shown (of several calls: of any of them): a
 * text by its SHA-256 (a subject or body changed by one character fails); a list (recipients) as
 * long as shown with every element one shown (addresses compared in canonical form, as they are
 * sent); anything else equal as JSON.
 */
export function boundConstraint(id: string, input: string, values: readonly Json[]): ValueConstraint {
  if (values.every((v) => typeof v === "string"))
    return { sha256: [...new Set(values.map((v) => textSha256(v as string)))].sort() };
  if (values.every((v) => Array.isArray(v))) {
    const lists = values as Json[][];
    const lengths = lists.map((l) => l.length);
    const members = [...new Map(lists.flat().map((m) => [canonicalJson(m), m])).values()];
    return {
      all: [
        { type: ["array"] },
        { min_length: Math.min(...lengths) },
        { max_length: Math.max(...lengths) },
        { elements: { in: members } },
      ],
    };
  }
  if (values.length === 1 && values[0] !== null && typeof values[0] !== "object") return { eq: values[0]! };
  throw refused(
    id,
    `cannot bind ${input}: its values are of kinds an approval cannot pin together`,
    "binding_unreadable",
  );
}

/** The request's policy decision with each bound op's grant narrowed to what was shown. */
export function boundPolicy(policy: PolicyDecision, bound: Bound): PolicyDecision {
  return {
    ...policy,
    grants: policy.grants.map((grant) => {
      const add = bound.get(grant.op);
      if (add === undefined) return grant;
      const args = { ...grant.args };
      for (const [input, c] of Object.entries(add))
        args[input] = args[input] === undefined ? c : { all: [args[input]!, c] };
      return { ...grant, args };
    }),
  };
}

function connectorOf(ctx: AppContext): ConnectorContext | { problem: string } {
  if (ctx.previews === undefined)
    return { problem: "this authority reads no content for approvals (no connector host)" };
  try {
    const { connections, dataDir, limits } = ctx.previews.connector();
    return {
      connections,
      dataDir,
      limits: { ...limits, timeoutMs: Math.min(ctx.previews.timeoutMs, limits.timeoutMs) },
    };
  } catch (err) {
    return { problem: err instanceof Error ? err.message : String(err) };
  }
}

function refused(id: string, message: string, reason: string): CountersignError {
  return new CountersignError("approval_denied", "authority", message, { requestId: id, details: { reason } });
}

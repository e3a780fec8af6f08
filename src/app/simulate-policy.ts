import { z } from "zod";
import type { ManifestSet } from "../manifest/index.js";
import { PolicyDecision, RequestStatus, type EffectVerdict, type StoredRequest } from "../model/index.js";
import { decide, type Policy } from "../policy/index.js";
import type { RecordedRequest } from "../store/index.js";
import { requestGlance } from "./request-glance.js";

const DecisionKind = PolicyDecision.shape.kind;
type DecisionKind = z.infer<typeof DecisionKind>;

/** How one call was ruled: its verdict and the rule that gave it (null: the policy default or a built-in floor). */
const Ruling = z.object({ verdict: z.enum(["allow", "ask", "deny"]), rule: z.string().nullable() }).strict();

/** A call whose ruling the other policy changes. */
export const RulingChange = z
  .object({ op: z.string(), line: z.number().int(), before: Ruling.nullable(), after: Ruling })
  .strict();
export type RulingChange = z.infer<typeof RulingChange>;

/** One recorded request decided again: `after` null and `problem` set when it cannot be replayed. */
export const ReplayedRequest = z
  .object({
    id: z.string(),
    created_at: z.string(), // ISO date-time
    token: z.string().nullable(), // null when the row no longer reads
    status: RequestStatus.nullable(),
    headline: z.string().nullable(),
    before: DecisionKind.nullable(), // the policy's decision when it was submitted
    after: DecisionKind.nullable(),
    changed: z.boolean(),
    rulings: z.array(RulingChange), // the calls that make the difference
    problem: z.string().nullable(), // why it cannot be replayed
  })
  .strict();
export type ReplayedRequest = z.infer<typeof ReplayedRequest>;

const Tally = z
  .object({ auto_approved: z.number().int(), ask: z.number().int(), auto_rejected: z.number().int() })
  .strict();

/** `countersign policy simulate --json`. */
export const PolicySimulation = z
  .object({
    policy: z
      .object({
        dir: z.string(),
        sha256: z.string(),
        remembered: z.boolean(),
        dropped: z.array(z.object({ id: z.string(), why: z.string() }).strict()),
      })
      .strict(),
    since: z.string().nullable(),
    requests: z.array(ReplayedRequest),
    totals: z
      .object({
        requests: z.number().int(),
        before: Tally,
        after: Tally,
        changed: z.number().int(),
        cannot_replay: z.number().int(),
      })
      .strict(),
  })
  .strict();
export type PolicySimulation = z.infer<typeof PolicySimulation>;

export interface SimulationInput {
  recorded: readonly RecordedRequest[];
  /** The policy a request of this submitter token is decided with (remembered rules included or not). */
  policyFor: (token: string) => Policy;
  /** The manifests a request is decided with now, or why its own cannot be had (requestManifests). */
  manifestsOf: (request: StoredRequest) => { set: ManifestSet; problem?: string };
}

/**
 * Decide recorded requests again under another policy, with the authority's own decide, and say
 * what changes. Pure over the requests given: reading and writing are the caller's. A request
 * that cannot be decided again (a row an older version wrote, manifests no longer in force) is
 * kept with why, and counts in no tally.
 */
export function simulatePolicy(input: SimulationInput): {
  requests: ReplayedRequest[];
  totals: PolicySimulation["totals"];
} {
  const requests = input.recorded.map((r) =>
    "request" in r ? replay(r.request, input) : cannotReplay(r.id, r.created_at, r.problem),
  );
  const tally = (side: "before" | "after") => {
    const count = (kind: DecisionKind) => requests.filter((r) => r.after !== null && r[side] === kind).length;
    return { auto_approved: count("auto_approved"), ask: count("ask"), auto_rejected: count("auto_rejected") };
  };
  return {
    requests,
    totals: {
      requests: requests.length,
      before: tally("before"),
      after: tally("after"),
      changed: requests.filter((r) => r.changed).length,
      cannot_replay: requests.filter((r) => r.problem !== null).length,
    },
  };
}

function replay(request: StoredRequest, input: SimulationInput): ReplayedRequest {
  const { set, problem } = input.manifestsOf(request);
  const shown = { token: request.token, status: request.status, before: request.policy.kind };
  const headline = (manifests: ManifestSet | undefined) =>
    requestGlance(request, manifests === undefined ? {} : { manifests }).headline;
  if (problem !== undefined)
    return { ...cannotReplay(request.id, request.created_at, problem), ...shown, headline: headline(undefined) };
  const gone = [...new Set(request.facts.effects.map((e) => e.op).filter((op) => !set.actions.has(op)))];
  if (gone.length > 0) {
    return {
      ...cannotReplay(
        request.id,
        request.created_at,
        `${gone.join(", ")} ${gone.length === 1 ? "is" : "are"} no longer in the manifests in force`,
      ),
      ...shown,
      headline: headline(undefined),
    };
  }
  let decision: PolicyDecision;
  try {
    decision = decide(request.facts, input.policyFor(request.token), set);
  } catch (err) {
    return {
      ...cannotReplay(
        request.id,
        request.created_at,
        `the policy cannot decide its facts: ${err instanceof Error ? err.message : String(err)}`,
      ),
      ...shown,
      headline: headline(set),
    };
  }
  return {
    id: request.id,
    created_at: new Date(request.created_at).toISOString(),
    ...shown,
    headline: headline(set),
    after: decision.kind,
    changed: decision.kind !== request.policy.kind,
    rulings: rulingChanges(request.policy.effects, decision.effects),
    problem: null,
  };
}

/** The calls ruled otherwise, in the program's order (the verdicts follow the facts' effects). */
function rulingChanges(before: readonly EffectVerdict[], after: readonly EffectVerdict[]): RulingChange[] {
  return after.flatMap((now, i) => {
    const then = before[i];
    if (then !== undefined && then.verdict === now.verdict && then.rule === now.rule) return [];
    return [
      {
        op: now.op,
        line: now.site.line,
        before: then === undefined ? null : { verdict: then.verdict, rule: then.rule },
        after: { verdict: now.verdict, rule: now.rule },
      },
    ];
  });
}

function cannotReplay(id: string, createdAt: number, problem: string): ReplayedRequest {
  return {
    id,
    created_at: new Date(createdAt).toISOString(),
    token: null,
    status: null,
    headline: null,
    before: null,
    after: null,
    changed: false,
    rulings: [],
    problem,
  };
}

import type { PreviewShown, StoredRequest } from "../model/index.js";
import type { Remembered } from "../policy/index.js";
import type { ShownBinding } from "../app/index.js";

const iso = (ms: number): string => new Date(ms).toISOString();

/** A decision as the API shows it; the approver's name only to the approver. */
function decisionView(request: StoredRequest, withApprover: boolean) {
  const d = request.decision;
  if (d === null) return null;
  return {
    kind: d.kind,
    ...(withApprover ? { approver: d.approver } : {}),
    reason: d.reason,
    feedback: d.feedback,
    at: iso(d.at),
  };
}

/**
 * What a submitter sees of its own request: status, the policy's verdict and reasons, the
 * decision with the reason or feedback meant for it. Never the source or facts back (it sent
 * them), never anything fetched for the approver.
 */
export function submitterView(request: StoredRequest) {
  return {
    id: request.id,
    status: request.status,
    program: request.facts.program,
    agent_manifests: request.facts.agentManifests ?? null, // what a runner resuming it must hold
    created_at: iso(request.created_at),
    deadline_at: iso(request.deadline_at),
    policy: { kind: request.policy.kind, reason: request.policy.reason, effects: request.policy.effects },
    decision: decisionView(request, false),
  };
}

/**
 * Everything, for the approver: source, facts, the policy's whole decision, who submitted it, and
 * (in the view of one request) what remembering would save and the previews fetched for it.
 */
export function approverView(
  request: StoredRequest,
  remember: Remembered[] | null = null,
  previews: PreviewShown[] | null = null,
  binding: ShownBinding | null = null,
) {
  return {
    ...submitterView(request),
    seq: request.seq,
    token: request.token,
    rationale: request.rationale,
    source: request.source,
    facts: request.facts,
    policy: request.policy,
    decision: decisionView(request, true),
    ...(remember === null ? {} : { remember }),
    ...(previews === null ? {} : { previews }),
    ...(binding === null ? {} : { binding }), // what an approval of this showing binds: send binding.sha256 as `shown`
  };
}

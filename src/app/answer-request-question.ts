import { answerQuestion, type FactAnswer } from "./answer-question.js";
import type { AppContext } from "./context.js";
import { policyInForce } from "./policy-in-force.js";
import { readRequest } from "./read-request.js";
import { requestManifests } from "./request-manifests.js";

/**
 * answerQuestion for a stored request, with the manifests it was analyzed with (its agent manifests
 * beside the trusted ones) and its decision; the rules that gave it are those of the policy in force
 * for its submitter while that is still the policy it was decided by (the same sha256).
 */
export async function answerRequestQuestion(ctx: AppContext, id: string, text: string): Promise<FactAnswer | null> {
  const request = await readRequest(ctx, id);
  const { policy } = await policyInForce(ctx, request.token);
  const rules = policy.sha256 === request.policy.policy.sha256 ? policy.rules : null;
  return answerQuestion(request.facts, text, requestManifests(ctx, request).set, { decision: request.policy, rules });
}

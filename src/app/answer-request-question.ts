import { answerQuestion, questionNeedsPreviews, type FactAnswer, type QuestionPreviews } from "./answer-question.js";
import type { PreviewShown } from "../model/index.js";
import type { AppContext } from "./context.js";
import { policyInForce } from "./policy-in-force.js";
import { previewRequest } from "./preview-request.js";
import { readRequest } from "./read-request.js";
import { requestManifests } from "./request-manifests.js";

/**
 * answerQuestion for a stored request, with the manifests it was analyzed with (its agent manifests
 * beside the trusted ones) and its decision; the rules that gave it are those of the policy in force
 * for its submitter while that is still the policy it was decided by (the same sha256). When the
 * question is about what a preview shows (who gets a draft, what it says) and the request waits for
 * the approver, the answer reads the previews of the showing it is asked beside (`seen.previews`,
 * already fetched and audited), or else fetches them for the approver now (audited); only then.
 */
export async function answerRequestQuestion(
  ctx: AppContext,
  id: string,
  text: string,
  seen?: { approver: string; previews?: readonly PreviewShown[] },
): Promise<FactAnswer | null> {
  const request = await readRequest(ctx, id);
  const { policy } = await policyInForce(ctx, request.token);
  const rules = policy.sha256 === request.policy.policy.sha256 ? policy.rules : null;
  let previews: QuestionPreviews | undefined;
  if (questionNeedsPreviews(text)) {
    if (request.status !== "pending") previews = { problem: "the request is no longer waiting for a decision" };
    else if (seen === undefined) previews = { problem: "previews are not fetched for a question asked this way" };
    else if (seen.previews !== undefined) previews = { shown: seen.previews };
    else {
      try {
        previews = { shown: await previewRequest(ctx, request, seen.approver) };
      } catch (err) {
        previews = { problem: err instanceof Error ? err.message : String(err) };
      }
    }
  }
  return answerQuestion(
    request.facts,
    text,
    requestManifests(ctx, request).set,
    { decision: request.policy, rules },
    { request, ...(previews === undefined ? {} : { previews }) },
  );
}

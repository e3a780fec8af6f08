import { answerQuestion, type FactAnswer } from "./answer-question.js";
import type { AppContext } from "./context.js";
import { readRequest } from "./read-request.js";
import { requestManifests } from "./request-manifests.js";

/** answerQuestion for a stored request, with the manifests it was analyzed with (its agent manifests beside the trusted ones). */
export async function answerRequestQuestion(ctx: AppContext, id: string, text: string): Promise<FactAnswer | null> {
  const request = await readRequest(ctx, id);
  return answerQuestion(request.facts, text, requestManifests(ctx, request).set);
}

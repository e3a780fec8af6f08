import { isDeepStrictEqual } from "node:util";
import { CountersignError } from "../model/errors.js";
import { HumanDecision, type ApprovalRequest } from "../model/request.js";
import type { AppContext } from "./context.js";
import { findRequest } from "./find-request.js";

/**
 * Record a person's decision on a request the policy asked about. A rejection needs a reason and
 * request_more needs feedback; deciding again the same way changes nothing, deciding otherwise
 * is refused (`details.conflict`), and so is deciding a request the policy already settled.
 */
export async function decideRequest(ctx: AppContext, id: string, decision: HumanDecision): Promise<ApprovalRequest> {
  const parsed = HumanDecision.safeParse(decision);
  if (!parsed.success) throw new CountersignError("usage_error", "authority", parsed.error.issues[0]!.message, { requestId: id });
  const request = await findRequest(ctx, id);
  if (request.decision.kind !== "ask") {
    throw new CountersignError("usage_error", "authority", `request ${id} was ${request.decision.kind} by the policy: nobody decides it`, { requestId: id, details: { conflict: true } });
  }
  if (request.human !== undefined) {
    const { decided: _, ...earlier } = request.human;
    if (isDeepStrictEqual(earlier, parsed.data)) return request;
    throw new CountersignError("usage_error", "authority", `request ${id} is already ${request.human.kind}`, { requestId: id, details: { conflict: true } });
  }
  const decided: ApprovalRequest = { ...request, human: { ...parsed.data, decided: ctx.now().toISOString() } };
  await ctx.requests.save(decided);
  return decided;
}

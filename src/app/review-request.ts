import type { StoredRequest } from "../model/index.js";
import { rememberRule, type Remembered } from "../policy/index.js";
import type { AppContext } from "./context.js";
import { readRequest } from "./read-request.js";

/**
 * Everything the approver sees of a request: the stored request, and for one that waits for a
 * person the rules "approve and remember" would save (or, per op, why none can be made) — shown
 * before anything is saved.
 */
export async function reviewRequest(ctx: AppContext, id: string): Promise<{ request: StoredRequest; remember: Remembered[] | null }> {
  const request = await readRequest(ctx, id);
  const remember = request.status === "pending" ? rememberRule(request.facts, request.policy, ctx.manifests()) : null;
  return { request, remember };
}

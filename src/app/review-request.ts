import type { PreviewShown, StoredRequest } from "../model/index.js";
import { rememberRule, type Remembered } from "../policy/index.js";
import type { AppContext } from "./context.js";
import { previewRequest } from "./preview-request.js";
import { readRequest } from "./read-request.js";

/**
 * Everything `approver` sees of a request: the stored request, and for one that waits for a
 * person the rules "approve and remember" would save (or, per op, why none can be made) — shown
 * before anything is saved — and the previews fetched for this showing.
 */
export async function reviewRequest(
  ctx: AppContext,
  id: string,
  approver: string,
): Promise<{ request: StoredRequest; remember: Remembered[] | null; previews: PreviewShown[] }> {
  const request = await readRequest(ctx, id);
  const remember = request.status === "pending" ? rememberRule(request.facts, request.policy, ctx.manifests()) : null;
  return { request, remember, previews: await previewRequest(ctx, request, approver) };
}

import type { PreviewShown, StoredRequest } from "../model/index.js";
import { rememberRule, type Remembered } from "../policy/index.js";
import { shownBinding, type ShownBinding } from "./approval-binding.js";
import type { AppContext } from "./context.js";
import { previewRequest } from "./preview-request.js";
import { readRequest } from "./read-request.js";

/**
 * Everything `approver` sees of a request: the stored request, and for one that waits for a
 * person the rules "approve and remember" would save (or, per op, why none can be made) — shown
 * before anything is saved — the previews fetched for this showing, and what approving this
 * showing binds (the content of its resolved sends; its digest goes back with the approval).
 */
export async function reviewRequest(
  ctx: AppContext,
  id: string,
  approver: string,
): Promise<{ request: StoredRequest; remember: Remembered[] | null; previews: PreviewShown[]; binding: ShownBinding | null }> {
  const request = await readRequest(ctx, id);
  const remember = request.status === "pending" ? rememberRule(request.facts, request.policy, ctx.manifests()) : null;
  const previews = await previewRequest(ctx, request, approver);
  return { request, remember, previews, binding: request.status === "pending" ? shownBinding(request, previews, ctx.manifests()) : null };
}

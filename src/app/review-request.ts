import type { ManifestSet } from "../manifest/index.js";
import type { PreviewShown, StoredRequest } from "../model/index.js";
import { rememberRule, type Remembered } from "../policy/index.js";
import { shownBinding, type ShownBinding } from "./approval-binding.js";
import type { AppContext } from "./context.js";
import { previewRequest } from "./preview-request.js";
import { readRequest } from "./read-request.js";
import { requestGlance, type RequestGlance } from "./request-glance.js";
import { requestManifests } from "./request-manifests.js";

/** A request with what a surface needs to show it at a glance: its manifests and the file connection's roots. */
export interface ReviewedRequest {
  request: StoredRequest;
  remember: Remembered[] | null;
  previews: PreviewShown[];
  binding: ShownBinding | null;
  manifests: ManifestSet;
  fileRoots?: readonly string[];
}

/**
 * Everything `approver` sees of a request: the stored request, and for one that waits for a
 * person the rules "approve and remember" would save (or, per op, why none can be made) — shown
 * before anything is saved — the previews fetched for this showing, and what approving this
 * showing binds (the content of its resolved sends; its digest goes back with the approval).
 */
export async function reviewRequest(ctx: AppContext, id: string, approver: string): Promise<ReviewedRequest> {
  const request = await readRequest(ctx, id);
  const remember = request.status === "pending" ? rememberRule(request.facts, request.policy, ctx.manifests()) : null;
  const previews = await previewRequest(ctx, request, approver);
  const binding = request.status === "pending" ? shownBinding(request, previews, ctx.manifests()) : null;
  const roots = fileRoots(ctx);
  return {
    request,
    remember,
    previews,
    binding,
    manifests: requestManifests(ctx, request).set,
    ...(roots === undefined ? {} : { fileRoots: roots }),
  };
}

/**
 * A list row's glance, for requests read together: the manifests and file roots are read once for the list. No preview
 * is fetched for a row.
 */
export function listGlance(ctx: AppContext): (request: StoredRequest) => RequestGlance {
  const manifests = ctx.manifests();
  const roots = fileRoots(ctx);
  return (request) => requestGlance(request, { manifests, ...(roots === undefined ? {} : { fileRoots: roots }) });
}

/**
 * The roots of the user's file connection, when the authority has one (none: a surface does not say what lies outside).
 */
export function fileRoots(ctx: AppContext): readonly string[] | undefined {
  try {
    const roots = ctx.previews?.connector().connections.byConnector.fs?.roots;
    return roots === undefined || roots.length === 0 ? undefined : roots;
  } catch {
    return undefined;
  }
}

import type { ManifestSet } from "../manifest/index.js";
import { canonicalJson } from "../constraint/index.js";
import type { Json, PreviewField } from "../model/index.js";
import type { ConnectorContext } from "./context.js";
import { readToShow, renderFields, type PreviewPolicy } from "./fetch-preview.js";
import { fillTemplate } from "./interpolate.js";
import { resolvePath } from "./resolve-path.js";

/**
 * What an approval of a resolved action binds, read now: the preview fields as the page shows
 * them and the `[resolve]` inputs the wrapper will check at the send, both taken from one read
 * when the preview and the resolve are the same read-only op with the same arguments (so the
 * values bound are those of the very content that renders as shown), else from two reads. Each
 * read is an effect made with the user's credential: `policy` is asked about exactly its admitted
 * arguments first, as for a preview, and a read it does not allow does not run.
 */
export type ApprovalRead =
  | { ok: true; fields: PreviewField[]; resolved: Record<string, Json> }
  | { ok: false; reason: string };

export async function readForApproval(
  set: ManifestSet,
  op: string,
  args: Record<string, Json>,
  ctx: ConnectorContext,
  policy: PreviewPolicy,
): Promise<ApprovalRead> {
  try {
    const action = set.actions.get(op);
    const resolve = action?.manifest.resolve;
    const preview = action?.manifest.approval.preview;
    const resolveTemplate = action?.templates.resolve;
    const previewTemplate = action?.templates.preview;
    if (
      action === undefined ||
      resolve === undefined ||
      preview === undefined ||
      resolveTemplate === undefined ||
      previewTemplate == null
    ) {
      return { ok: false, reason: `${op} declares no [resolve] with a preview` };
    }
    const read = (target: string, filled: Json | undefined) =>
      readToShow(set, `${action.connector}.${target}`, filled, ctx, policy);
    const resolveArgs = fillTemplate(resolveTemplate, { args });
    const previewArgs = fillTemplate(previewTemplate, { args });
    const resolved = await read(resolve.op, resolveArgs);
    const same = resolve.op === preview.op && canonicalJson(resolveArgs ?? null) === canonicalJson(previewArgs ?? null);
    const shown = same ? resolved : await read(preview.op, previewArgs);
    const inputs: Record<string, Json> = {};
    for (const [input, path] of Object.entries(resolve.inputs)) {
      const value = resolvePath(resolved, path);
      if (value === undefined) return { ok: false, reason: `${resolve.op} returned no \`${path}\` for ${input}` };
      inputs[input] = value;
    }
    // As fetchPreview renders them, so that an unchanged draft gives the digest the page showed.
    const fields = renderFields(preview, shown);
    return { ok: true, fields, resolved: inputs };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

import { createHash } from "node:crypto";
import type { ManifestSet } from "../manifest/index.js";
import type { Json, PreviewField } from "../model/index.js";
import type { ConnectorContext } from "./context.js";
import { admitPreview } from "./admission.js";
import { executeAction } from "./execute-action.js";
import { fillTemplate } from "./interpolate.js";
import { resolvePath } from "./resolve-path.js";

/** `reason` is ready to show: "Preview unavailable: <why>". `sha256` hashes the preview op's output as JSON. */
export type Preview = { ok: true; fields: PreviewField[]; sha256: string } | { ok: false; reason: string; fields: [] };

export const PREVIEW_TIMEOUT_MS = 5_000;

function display(value: Json | undefined): string {
  if (value === undefined || value === null) return "n/a";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * Fetch what the user should see before approving a gated action (Aileron ADR-0016): run the
 * action's `[approval.preview]` op on the same connector (an agent action's: on its steps'), with
 * the same connection, within 5 s,
 * and read each `render` path. Never throws and caches nothing: any failure is reported as
 * unavailable and the approval goes on without it.
 */
export async function fetchPreview(set: ManifestSet, op: string, args: Record<string, Json>, ctx: ConnectorContext): Promise<Preview> {
  try {
    // An agent action (`set.agent`) previews with the trusted read its check found on its steps' connectors.
    const agent = set.agent?.actions.get(op);
    const action = agent ?? set.actions.get(op);
    const spec = action?.manifest.approval.preview;
    const template = action?.templates.preview;
    const target = agent === undefined ? `${action?.connector}.${spec?.op}` : agent.previewOp;
    if (action === undefined || spec === undefined || template === undefined || template === null || target === null) return { ok: false, reason: `Preview unavailable: ${op} declares no preview`, fields: [] };
    const previewArgs = fillTemplate(template, { args }) as Record<string, Json>;
    const limits = { ...ctx.limits, timeoutMs: Math.min(ctx.limits.timeoutMs, PREVIEW_TIMEOUT_MS) };
    const output = await executeAction(set, admitPreview(set, target, previewArgs), { ...ctx, limits });
    const fields = Object.entries(spec.render).map(([label, path]) => ({
      label,
      value: display(resolvePath(output, path)),
      multiline: spec.multiline.includes(label),
    }));
    return { ok: true, fields, sha256: createHash("sha256").update(JSON.stringify(output)).digest("hex") };
  } catch (err) {
    return { ok: false, reason: `Preview unavailable: ${err instanceof Error ? err.message : String(err)}`, fields: [] };
  }
}

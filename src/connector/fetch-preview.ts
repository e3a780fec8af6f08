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

/**
 * The policy's word on one concrete preview read (its op and the exact arguments it will be run
 * with), asked before it runs: null lets it run; otherwise why not, shown after "Preview
 * unavailable: ". The connector host never reads the policy: the caller decides.
 */
export type PreviewPolicy = (op: string, args: Readonly<Record<string, Json>>) => string | null;

/**
 * One read-only op run for a person to see (a preview, the read an approval binds): admitted, the
 * policy asked about exactly its admitted arguments, and run within the preview's time. Throws
 * the policy's refusal (nothing ran) or the read's failure.
 */
export async function readToShow(
  set: ManifestSet,
  op: string,
  args: Json | undefined,
  ctx: ConnectorContext,
  policy: PreviewPolicy,
): Promise<Json> {
  const admission = admitPreview(set, op, args as Record<string, Json>);
  const refused = policy(admission.op, admission.args);
  if (refused !== null) throw new Error(refused);
  return executeAction(set, admission, {
    ...ctx,
    limits: { ...ctx.limits, timeoutMs: Math.min(ctx.limits.timeoutMs, PREVIEW_TIMEOUT_MS) },
  });
}

/** The fields a preview shows, each `render` path read from the output. */
export function renderFields(
  spec: { render: Record<string, string>; multiline: readonly string[] },
  output: Json,
): PreviewField[] {
  return Object.entries(spec.render).map(([label, path]) => ({
    label,
    value: display(resolvePath(output, path)),
    multiline: spec.multiline.includes(label),
  }));
}

function display(value: Json | undefined): string {
  if (value === undefined || value === null) return "n/a";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * Fetch what the user should see before approving a gated action (Aileron ADR-0016): run the
 * action's `[approval.preview]` op on the same connector (an agent action's: on its steps'), with
 * the same connection, within 5 s,
 * and read each `render` path. A preview is an effect made with the user's credential, so the
 * read is admitted first (its arguments frozen), `policy` is asked about exactly those arguments,
 * and only what it allowed runs, through the connections as any call. Never throws and caches
 * nothing: any failure is reported as unavailable and the approval goes on without it.
 */
export async function fetchPreview(
  set: ManifestSet,
  op: string,
  args: Record<string, Json>,
  ctx: ConnectorContext,
  policy: PreviewPolicy,
): Promise<Preview> {
  try {
    // An agent action (`set.agent`) previews with the trusted read its check found on its steps' connectors.
    const agent = set.agent?.actions.get(op);
    const action = agent ?? set.actions.get(op);
    const spec = action?.manifest.approval.preview;
    const template = action?.templates.preview;
    const target = agent === undefined ? `${action?.connector}.${spec?.op}` : agent.previewOp;
    if (action === undefined || spec === undefined || template === undefined || template === null || target === null)
      return { ok: false, reason: `Preview unavailable: ${op} declares no preview`, fields: [] };
    const output = await readToShow(set, target, fillTemplate(template, { args }), ctx, policy);
    const fields = renderFields(spec, output);
    return { ok: true, fields, sha256: createHash("sha256").update(JSON.stringify(output)).digest("hex") };
  } catch (err) {
    return {
      ok: false,
      reason: `Preview unavailable: ${err instanceof Error ? err.message : String(err)}`,
      fields: [],
    };
  }
}

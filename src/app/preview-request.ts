import { createHash } from "node:crypto";
import { fetchPreview, PREVIEW_TIMEOUT_MS, type ConnectorContext, type Preview } from "../connector/index.js";
import { canonicalJson } from "../constraint/index.js";
import { AGENT_CONNECTOR, storedAgentManifests, type Template } from "../manifest/index.js";
import type { Effect, PreviewShown, StoredRequest } from "../model/index.js";
import type { AppContext, PreviewHost } from "./context.js";
import { previewArgs } from "./preview-args.js";
import { requestManifests } from "./request-manifests.js";

/** The most previews one showing fetches: each is a call to the user's provider. */
export const MAX_PREVIEWS = 8;

/** Which call a preview is for, and the values of its arguments. */
type Of = Pick<PreviewShown, "effect" | "op" | "site" | "args">;

/** What one showing does for one effect and one value of its preview's arguments. */
type Step = { show: PreviewShown } | { fetch: Of };

/**
 * The previews of a pending request, fetched now for `approver` (Aileron ADR-0016): for each
 * effect whose action declares `[approval.preview]`, and each call of an agent action that does
 * (with the agent manifests kept with the request, filled from the call's own arguments), one
 * preview per combination of the values its preview arguments can take, read through the
 * connector host with the user's connection and within the host's timeout. Nothing is cached: every showing asks the provider again. A preview
 * that cannot be had (arguments only known at run time, too many, a provider error or timeout,
 * no connection) is shown as unavailable; the approver can still decide. Each showing leaves a
 * `preview_shown` audit entry with the hash of what was shown, never the content; if that entry
 * cannot be written, nothing is shown.
 */
export async function previewRequest(ctx: AppContext, request: StoredRequest, approver: string): Promise<PreviewShown[]> {
  const host = ctx.previews;
  if (host === undefined || request.status !== "pending") return [];
  const { set: manifests, problem } = requestManifests(ctx, request);
  const steps: Step[] = [];
  let budget = MAX_PREVIEWS;
  const plan = (of: Of, args: Effect["args"] | undefined, template: Template): void => {
    const values = args === undefined ? undefined : previewArgs(args, template, budget);
    if (values === undefined) {
      steps.push({ show: { ...of, unavailable: "Preview unavailable: the analysis did not record this call's arguments" } });
    } else if (values.kind === "unknown") {
      const which = values.inputs.length === 1 ? `value for ${values.inputs[0]} is` : `values for ${values.inputs.join(", ")} are`;
      steps.push({ show: { ...of, unavailable: `Preview unavailable: the program's ${which} only known when it runs` } });
    } else if (values.kind === "too_many") {
      steps.push({ show: { ...of, unavailable: `Preview unavailable: ${values.count} possible values, more than the ${budget} previews left to fetch (at most ${MAX_PREVIEWS} a request)` } });
    } else {
      budget -= values.sets.length;
      for (const args of values.sets) steps.push({ fetch: { ...of, args } });
    }
  };
  const agentCalls = new Set<string>(); // an agent action's steps share its call's site: one preview per call
  request.facts.effects.forEach((effect, index) => {
    const origin = effect.agentAction;
    const call = `${origin?.op} ${effect.site.line}:${effect.site.column}`;
    if (origin !== undefined && !agentCalls.has(call)) {
      agentCalls.add(call);
      const of = { effect: index, op: origin.op, site: effect.site, args: {} };
      const template = manifests.agent?.actions.get(origin.op)?.templates.preview;
      if (problem !== undefined && declaresPreview(request, origin.op)) steps.push({ show: { ...of, unavailable: `Preview unavailable: ${problem}` } });
      else if (template !== undefined && template !== null) plan(of, origin.args, template);
    }
    const template = manifests.actions.get(effect.op)?.templates.preview;
    if (template !== undefined && template !== null) plan({ effect: index, op: effect.op, site: effect.site, args: {} }, effect.args, template);
  });
  if (steps.length === 0) return [];
  const connector = connectorFor(host);
  const shown = await Promise.all(
    steps.map(async (step): Promise<PreviewShown> => {
      if ("show" in step) return step.show;
      const of = step.fetch;
      if ("problem" in connector) return { ...of, unavailable: `Preview unavailable: ${connector.problem}` };
      const preview = await within(connector.limits.timeoutMs, fetchPreview(manifests, of.op, of.args, connector));
      return preview.ok ? { ...of, fields: preview.fields } : { ...of, unavailable: preview.reason };
    }),
  );
  const sha256 = createHash("sha256").update(canonicalJson(shown)).digest("hex");
  await (await ctx.store()).recordAudit({ type: "preview_shown", request_id: request.id, actor: approver, preview_sha256: sha256 });
  return shown;
}

/**
 * Whether the agent action `op` of a request declares a preview, by the manifests kept with it
 * (none kept: it may have; the approver is told it cannot be had).
 */
function declaresPreview(request: StoredRequest, op: string): boolean {
  if (request.agent_manifests === undefined) return true;
  return storedAgentManifests(request.agent_manifests)?.some((m) => `${AGENT_CONNECTOR}.${m.name}` === op && m.approval.preview !== undefined) ?? true;
}

/**
 * The user's connections as they are now, with the preview timeout, and without a plugin pool:
 * each preview loads its own plugin, so previews run side by side (a pool runs one call at a
 * time per connector) and a hung one delays no other.
 */
function connectorFor(host: PreviewHost): ConnectorContext | { problem: string } {
  try {
    const { connections, dataDir, limits } = host.connector();
    return { connections, dataDir, limits: { ...limits, timeoutMs: Math.min(host.timeoutMs, PREVIEW_TIMEOUT_MS) } };
  } catch (err) {
    return { problem: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * `preview`, or unavailable once `ms` have passed since the showing began: the connector's own
 * timeout starts with the plugin call, and starting a plugin on a busy machine counts too. What is
 * left running stops at that timeout.
 */
async function within(ms: number, preview: Promise<Preview>): Promise<Preview> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Preview>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: `Preview unavailable: no answer within ${ms} ms`, fields: [] }), ms);
  });
  try {
    return await Promise.race([preview, late]);
  } finally {
    clearTimeout(timer);
  }
}

import { createHash } from "node:crypto";
import {
  fetchPreview,
  PREVIEW_TIMEOUT_MS,
  type ConnectorContext,
  type Preview,
  type PreviewPolicy,
} from "../connector/index.js";
import { canonicalJson } from "../constraint/index.js";
import { AGENT_CONNECTOR, storedAgentManifests, type ManifestSet, type Template } from "../manifest/index.js";
import type { Effect, EffectVerdict, PreviewShown, Provenance, StoredRequest } from "../model/index.js";
import { decideCall, type Policy } from "../policy/index.js";
import type { AppContext, PreviewHost } from "./context.js";
import { policyInForce } from "./policy-in-force.js";
import { previewArgs } from "./preview-args.js";
import { requestManifests } from "./request-manifests.js";

/** The most previews one showing fetches: each is a call to the user's provider. */
export const MAX_PREVIEWS = 8;

/** Which call a preview is for, and the values of its arguments. */
type Of = Pick<PreviewShown, "effect" | "op" | "site" | "args">;

/**
 * What one showing does for one effect and one value of its preview's arguments (`influencedBy`: the call's, for the
 * policy).
 */
type Step = { show: PreviewShown } | { fetch: Of; influencedBy: Effect["influencedBy"] };

/**
 * The previews of a pending request, fetched now for `approver` (Aileron ADR-0016): for each
 * effect whose action declares `[approval.preview]`, and each call of an agent action that does
 * (with the agent manifests kept with the request, filled from the call's own arguments), one
 * preview per combination of the values its preview arguments can take, read through the
 * connector host with the user's connection and within the host's timeout. Nothing is cached: every showing asks the
 * provider again. A preview
 * is an effect made with the user's credential: its read, with the exact arguments it runs with,
 * must be allowed by the policy in force for this showing (the request's submitter's, remembered
 * rules included), as a call of the program would; anything else is not run. A preview
 * that cannot be had (arguments only known at run time, too many, not allowed by the policy, a
 * provider error or timeout, no connection) is shown as unavailable; the approver can still decide. Each showing leaves
 * a
 * `preview_shown` audit entry with the hash of what was shown, never the content; if that entry
 * cannot be written, nothing is shown.
 */
export async function previewRequest(
  ctx: AppContext,
  request: StoredRequest,
  approver: string,
): Promise<PreviewShown[]> {
  const host = ctx.previews;
  if (host === undefined || request.status !== "pending") return [];
  const { set: manifests, problem } = requestManifests(ctx, request);
  const steps: Step[] = [];
  let budget = MAX_PREVIEWS;
  const plan = (
    of: Of,
    args: Effect["args"] | undefined,
    template: Template,
    influencedBy: Effect["influencedBy"],
  ): void => {
    const values = args === undefined ? undefined : previewArgs(args, template, budget);
    if (values === undefined) {
      steps.push({
        show: { ...of, unavailable: "Preview unavailable: the analysis did not record this call's arguments" },
      });
    } else if (values.kind === "unknown") {
      const which =
        values.inputs.length === 1 ? `value for ${values.inputs[0]} is` : `values for ${values.inputs.join(", ")} are`;
      steps.push({
        show: { ...of, unavailable: `Preview unavailable: the program's ${which} only known when it runs` },
      });
    } else if (values.kind === "too_many") {
      steps.push({
        show: {
          ...of,
          unavailable: `Preview unavailable: ${values.count} possible values, more than the ${budget} previews left to fetch (at most ${MAX_PREVIEWS} a request)`,
        },
      });
    } else {
      budget -= values.sets.length;
      for (const args of values.sets) steps.push({ fetch: { ...of, args }, influencedBy });
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
      if (problem !== undefined && declaresPreview(request, origin.op))
        steps.push({ show: { ...of, unavailable: `Preview unavailable: ${problem}` } });
      else if (template !== undefined && template !== null) plan(of, origin.args, template, effect.influencedBy);
    }
    const template = manifests.actions.get(effect.op)?.templates.preview;
    if (template !== undefined && template !== null)
      plan({ effect: index, op: effect.op, site: effect.site, args: {} }, effect.args, template, effect.influencedBy);
  });
  if (steps.length === 0) return [];
  const connector = connectorFor(host);
  const policy = await policyFor(ctx, request);
  const shown = await Promise.all(
    steps.map(async (step): Promise<PreviewShown> => {
      if ("show" in step) return step.show;
      const of = step.fetch;
      if ("problem" in connector) return { ...of, unavailable: `Preview unavailable: ${connector.problem}` };
      if ("problem" in policy) return { ...of, unavailable: `Preview unavailable: ${policy.problem}` };
      const allowed = previewPolicy(policy.policy, manifests, of, step.influencedBy);
      const preview = await within(
        connector.limits.timeoutMs,
        fetchPreview(manifests, of.op, of.args, connector, allowed),
      );
      return preview.ok ? { ...of, fields: preview.fields } : { ...of, unavailable: preview.reason };
    }),
  );
  const sha256 = createHash("sha256").update(canonicalJson(shown)).digest("hex");
  await (await ctx.store()).recordAudit({
    type: "preview_shown",
    request_id: request.id,
    actor: approver,
    preview_sha256: sha256,
  });
  return shown;
}

/**
 * The policy in force now for the request's submitter (read for each showing: a reload counts at once), or why there is
 * none: then nothing is fetched.
 */
export async function policyFor(
  ctx: AppContext,
  request: StoredRequest,
): Promise<{ policy: Policy } | { problem: string }> {
  try {
    return { policy: (await policyInForce(ctx, request.token)).policy };
  } catch (err) {
    return { problem: `the policy in force cannot be read (${err instanceof Error ? err.message : String(err)})` };
  }
}

/**
 * The policy's word on a preview's read: decided like the program's call `of` made with exactly
 * the read's op and arguments (decideCall, the one evaluation); only "allow" lets it run.
 */
export function previewPolicy(
  policy: Policy,
  set: ManifestSet,
  of: Pick<Of, "site">,
  influencedBy: readonly Provenance[] | undefined,
): PreviewPolicy {
  return (op, args) =>
    notAllowed(
      policy,
      decideCall({ op, args, site: of.site, ...(influencedBy === undefined ? {} : { influencedBy }) }, policy, set),
    );
}

/** Why a verdict does not let a preview run (null: it does), naming the deciding rule and its reason. */
function notAllowed(policy: Policy, verdict: EffectVerdict): string | null {
  if (verdict.verdict === "allow") return null;
  const rule = verdict.rule === null ? undefined : policy.rules.find((r) => r.id === verdict.rule);
  if (rule === undefined)
    return `not allowed by the policy (no rule allows ${verdict.op} with these arguments, and the policy's default is ${policy.default})`;
  const does =
    verdict.verdict === "deny" ? "denies it" : rule.decision === "deny" ? "may deny it" : "asks a person first";
  return `not allowed by the policy (rule "${rule.id}" ${does}${rule.reason === undefined ? "" : `: ${rule.reason}`})`;
}

/**
 * Whether the agent action `op` of a request declares a preview, by the manifests kept with it
 * (none kept: it may have; the approver is told it cannot be had).
 */
function declaresPreview(request: StoredRequest, op: string): boolean {
  if (request.agent_manifests === undefined) return true;
  return (
    storedAgentManifests(request.agent_manifests)?.some(
      (m) => `${AGENT_CONNECTOR}.${m.name}` === op && m.approval.preview !== undefined,
    ) ?? true
  );
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
    timer = setTimeout(
      () => resolve({ ok: false, reason: `Preview unavailable: no answer within ${ms} ms`, fields: [] }),
      ms,
    );
  });
  try {
    return await Promise.race([preview, late]);
  } finally {
    clearTimeout(timer);
  }
}

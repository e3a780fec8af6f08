import {
  describeArgument,
  describeCount,
  describeEffectConstraint,
  describeInfluence,
  describeSources,
} from "../constraint/index.js";
import { AGENT_CONNECTOR, storedAgentManifests, type ManifestSet } from "../manifest/index.js";
import type {
  AbstractValue,
  Effect,
  EffectConstraint,
  PreviewShown,
  Provenance,
  RequestStatus,
  StoredRequest,
} from "../model/index.js";
import { sourcesOf, type Remembered } from "../policy/index.js";
import { textSha256 } from "../constraint/index.js";
import type { ShownBinding } from "./approval-binding.js";
import {
  decidedBy,
  ownSources,
  rememberedRules,
  requestGlance,
  type DecidedBy,
  type PageRisk,
} from "./request-glance.js";
import { visibleText } from "./visible-text.js";

/** How sure countersign is of one fact, in the words the page uses. */
export type FactStatus = "proven" | "enforced" | "not_proven" | "unknown";
export const FACT_STATUS_LABELS: Readonly<Record<FactStatus, string>> = {
  proven: "proven",
  enforced: "enforced at run time",
  not_proven: "not proven",
  unknown: "unknown",
};

export interface PageFact {
  status: FactStatus;
  text: string;
  why: string;
  line: number | null; // the source line it is about, when it is about one
}

/** The policy's word on one trusted call. */
export interface PageRuling {
  op: string;
  line: number;
  column: number;
  verdict: "allow" | "ask" | "deny";
  rule: string | null; // null: the policy default or a built-in floor
  why: string;
}

/**
 * Something the page says about where a call's data or control comes from: `untrusted` when
 * third-party content may have chosen it; `own` when it comes from what the program's own earlier
 * call made (a draft's id), which the page labels as such rather than as untrusted.
 */
export interface PageSources {
  text: string;
  untrusted: boolean;
  own: boolean;
}

export interface PageCall {
  op: string;
  line: number;
  column: number;
  count: string; // "1", "0..3", "1 or more"
  // sources: null when the value is the program's own
  args: { name: string; value: string; sources: PageSources | null }[];
  influence: PageSources | null; // what the call's running, count or values may depend on; null: nothing
}

export interface PagePreviewField {
  label: string;
  value: string; // "n/a" when the preview has no such field
  multiline: boolean;
}

export type PagePreview =
  | { op: string; line: number | null; fields: PagePreviewField[] }
  | { op: string; line: number | null; unavailable: string }; // unavailable: "Preview unavailable: <why>"

/**
 * What approving this showing binds, for a request that sends content it resolves (a draft): per
 * call the sentence the page shows, and the digest an approval sends back (`sha256`); the
 * authority reads the content again at approval and refuses it if it differs from what was shown.
 */
export interface PageBinding {
  sha256: string;
  // bound: false when nothing can be bound (approving is refused)
  calls: { op: string; line: number; bound: boolean; text: string }[];
  runtime: { op: string; line: number; text: string }[]; // references only known at run time: nothing bound
}

/**
 * What "approve and remember" would save: per op the exact rule and what else it lets through, or why none can be made.
 */
export interface PageRemember {
  rules: { op: string; id: string; text: string; rule: string; also: string }[];
  refused: { op: string; why: string }[];
}

/**
 * A request as an approver reads it, in the order both approval surfaces (the browser page and
 * the terminal approver) show it: the verdict and its rules, the facts with their status, the
 * trusted calls with their arguments and counts, the previews, the agent's own words, the source.
 * Every string that the agent or the outside world chose is already made visible (visibleText);
 * a surface only has to escape for its medium.
 */
export interface RequestPage {
  id: string;
  status: RequestStatus;
  final: boolean; // no decision is possible any more
  entry: string;
  program_sha256: string;
  submitter: string; // the submitter token's name
  created_at: string; // ISO 8601
  deadline_at: string;
  verdict: { kind: "auto_approved" | "auto_rejected" | "ask"; reason: string; rulings: PageRuling[] };
  decision: {
    kind: string;
    approver: string | null;
    by: DecidedBy;
    rules: string[];
    reason: string | null;
    feedback: string | null;
    at: string;
  } | null;
  headline: string; // one plain sentence of what the program will do, from the facts (and this showing's previews)
  risks: PageRisk[]; // what to weigh before deciding, most serious first; empty: nothing stands out
  facts: PageFact[];
  calls: PageCall[];
  previews: PagePreview[] | null; // null: no preview was fetched for this request
  rationale: { program: string; submitter: string | null }; // the agent's words, never countersign's
  source: { lines: string[]; call_lines: number[] };
  remember: PageRemember | null; // null: the request no longer waits, nothing can be remembered
  binding: PageBinding | null; // null: nothing an approval binds beyond the program's own values
  agent_manifests: PageAgentManifests | null; // null: the program came with no agent manifests
}

/**
 * The action manifests the agent submitted with the program, as the request kept them (their hash
 * is what the receipt binds, so these are what a run executes): per action, its steps and the
 * arguments each call resolves to are facts; its descriptions are the agent's words.
 */
export type PageAgentManifests =
  | { sha256: string; actions: PageAgentAction[] }
  | { sha256: string; unavailable: string };

export interface PageAgentAction {
  op: string; // "agent.<name>": what the program imports from trusted/agent
  description: string; // the agent's words
  approval_required: boolean;
  idempotent: boolean;
  inputs: { name: string; type: string; required: boolean; description: string }[]; // description: the agent's words
  steps: PageAgentStep[];
}

export interface PageAgentStep {
  id: string;
  op: string; // the trusted op it calls, e.g. "http.post"
  inputs: { name: string; value: string }[]; // as the manifest builds them (`${args.x}` is the call's argument x)
  // what each call of the action resolves them to
  calls: { line: number; column: number; count: string; args: { name: string; value: string }[] }[];
}

export interface RequestPageInput {
  request: StoredRequest;
  manifests?: ManifestSet; // the set the request was analyzed with: which results are the program's own
  fileRoots?: readonly string[]; // the file connection's roots, when known
  remember?: Remembered[] | null;
  previews?: readonly PreviewShown[]; // fetched for this showing (pending requests only)
  binding?: ShownBinding | null; // what approving this showing binds (pending requests only)
}

/** The request page's content as plain data: the one view model of both approval surfaces. */
export function requestPage(input: RequestPageInput): RequestPage {
  const { request } = input;
  const { facts, policy } = request;
  const iso = (ms: number) => new Date(ms).toISOString();
  const glance = requestGlance(request, {
    ...(input.manifests === undefined ? {} : { manifests: input.manifests }),
    ...(input.previews === undefined ? {} : { previews: input.previews }),
    ...(input.fileRoots === undefined ? {} : { fileRoots: input.fileRoots }),
  });
  const page: RequestPage = {
    id: request.id,
    status: request.status,
    final: request.status !== "pending",
    entry: facts.program.entry,
    program_sha256: facts.program.sha256,
    submitter: request.token,
    created_at: iso(request.created_at),
    deadline_at: iso(request.deadline_at),
    verdict: {
      kind: policy.kind,
      reason: policy.reason,
      rulings: policy.effects.map((e) => ({
        op: e.op,
        line: e.site.line,
        column: e.site.column,
        verdict: e.verdict,
        rule: e.rule,
        why: e.why,
      })),
    },
    decision:
      request.decision === null
        ? null
        : {
            ...request.decision,
            by: decidedBy(request),
            rules: decidedBy(request) === "remembered_rule" ? rememberedRules(request) : [],
            at: iso(request.decision.at),
          },
    headline: glance.headline,
    risks: glance.risks,
    facts: pageFacts(request, input.manifests),
    calls: facts.effects.map((e) => pageCall(e, facts.effects, input.manifests)),
    previews: pagePreviews(input.previews),
    rationale: { program: facts.rationale, submitter: request.rationale },
    source: {
      lines: sourceLines(request.source),
      call_lines: [...new Set(facts.effects.map((e) => e.site.line))].sort((a, b) => a - b),
    },
    remember: request.status === "pending" && input.remember != null ? pageRemember(input.remember) : null,
    binding: request.status === "pending" && input.binding != null ? pageBinding(input.binding) : null,
    agent_manifests: pageAgentManifests(request),
  };
  return visibleStrings(page);
}

/**
 * One trusted call with its arguments, where each comes from, and what steers the call. A source
 * that is what the program's own earlier call made is named as such, not as untrusted.
 */
function pageCall(e: Effect, calls: readonly Effect[], manifests: ManifestSet | undefined): PageCall {
  const { own, source: relabel, value } = ownSources(manifests, calls);
  const sources = (list: readonly Provenance[]): PageSources | null =>
    list.length === 0
      ? null
      : {
          text: describeSources(list.map(relabel), "", calls),
          untrusted: list.some((p) => p.untrusted && !own(p)),
          own: list.some(own),
        };
  const influence =
    e.influencedBy === undefined
      ? describeInfluence(undefined, calls)
      : describeInfluence(e.influencedBy.map(relabel), calls);
  return {
    op: e.op,
    line: e.site.line,
    column: e.site.column,
    count: describeCount(e.count),
    args: Object.entries(e.args).map(([name, v]) => ({
      name,
      value: describeArgument(value(v)),
      sources: sources(sourcesOf(e, name)),
    })),
    influence:
      influence === null
        ? null
        : {
            text: influence,
            untrusted: e.influencedBy?.some((p) => p.untrusted && !own(p)) ?? true,
            own: e.influencedBy?.some(own) ?? false,
          },
  };
}

/**
 * The source's lines as the analysis numbers them (TypeScript's terminators: LS, PS and a lone CR too), so a call's
 * line is the line marked.
 */
function sourceLines(source: string): string[] {
  const lines = source.split(/\r\n|[\n\r\u2028\u2029]/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

const GUARANTEE_STATUS: Readonly<Record<string, FactStatus>> = {
  proven: "proven",
  enforced: "enforced",
  refuted: "not_proven",
};

/** The program's guarantees, the policy's run-time guards, then what the analysis could not bound. */
function pageFacts(request: StoredRequest, manifests: ManifestSet | undefined): PageFact[] {
  const { facts, policy } = request;
  const { value } = ownSources(manifests, facts.effects);
  const out: PageFact[] = facts.guarantees.map((g) => ({
    status: GUARANTEE_STATUS[g.status] ?? "unknown",
    text: g.text,
    why: g.why,
    line: g.site?.line ?? null,
  }));
  for (const guard of policy.guards) {
    out.push({
      status: "enforced",
      text: describeEffectConstraint(guard),
      why: "a deny rule could not be ruled out statically: every call is checked against it",
      line: null,
    });
  }
  for (const e of facts.effects) {
    for (const [name, v] of Object.entries(e.args)) {
      if (hasUnknown(v))
        out.push({
          status: "unknown",
          text: `${name} of ${e.op} ${describeArgument(value(v))}`,
          why: "the analysis cannot bound this value",
          line: e.site.line,
        });
    }
    if (e.count.max === null)
      out.push({
        status: "unknown",
        text: `${e.op} may be called ${describeCount(e.count)} times`,
        why: "no static bound on the number of calls",
        line: e.site.line,
      });
  }
  for (const d of facts.diagnostics)
    out.push({ status: "unknown", text: `${d.severity}: ${d.message}`, why: d.code, line: d.line });
  return out;
}

function hasUnknown(v: AbstractValue): boolean {
  if (v.kind === "unknown") return true;
  if (v.kind === "array") return hasUnknown(v.element);
  if (v.kind === "record") return Object.values(v.fields).some(hasUnknown);
  return false;
}

function pageRemember(remembered: Remembered[]): PageRemember {
  const rules: PageRemember["rules"] = [];
  const refused: PageRemember["refused"] = [];
  for (const r of remembered) {
    if (r.rule === null) {
      refused.push({ op: r.op, why: "why" in r ? r.why : "" });
      continue;
    }
    const constraint: EffectConstraint = { op: r.rule.op, ...(r.rule.when ?? {}) };
    const binds =
      "binds" in r && r.binds !== undefined && r.binds.length > 0
        ? `; and every ${r.binds.join(", ")} of ${r.op} is as shown in "Approving binds" (held exactly, the body by its SHA-256)`
        : "";
    const text = describeEffectConstraint(constraint) + binds;
    rules.push({
      op: r.op,
      id: r.rule.id,
      text,
      rule: JSON.stringify(r.rule, null, 2),
      also: `Any later program, not only this one, whose ${r.op} calls all fit this (${text}) gets them approved without asking; its other calls are still decided by the rest of the policy.`,
    });
  }
  return { rules, refused };
}

/**
 * The sentences of "what approving binds": a call shown with its content binds it exactly (a
 * multiline field, such as a body, by its SHA-256 over the text shown); one not shown binds
 * nothing, so approving is refused; a reference made at run time binds no content.
 */
function pageBinding(binding: ShownBinding): PageBinding {
  return {
    sha256: binding.sha256,
    calls: binding.calls.map((call) => {
      if (call.fields === null) {
        return {
          op: call.op,
          line: call.line,
          bound: false,
          text: `The content ${call.op} at line ${call.line} would send could not be shown, so an approval cannot bind it: approving is refused. Look again, or reject.`,
        };
      }
      const parts = call.fields.map((f) =>
        f.value.includes("\n") || f.value.length > 200
          ? `${f.label} as shown (sha256 ${textSha256(f.value)})`
          : `${f.label} ${f.value}`,
      );
      return {
        op: call.op,
        line: call.line,
        bound: true,
        text: `Approving sends exactly this (${call.op} at line ${call.line}): ${parts.join(", ")}. If it changes before the send, the send is refused and nothing is sent.`,
      };
    }),
    runtime: binding.runtime.map((r) => ({
      op: r.op,
      line: r.line,
      text: `What ${r.op} at line ${r.line} acts on is only known when the program runs: approving binds no content for it; the send is checked against the rules and guarantees shown above only.`,
    })),
  };
}

// The previews fetched for this showing, as the page shows them: by the call's line.
function pagePreviews(previews: readonly PreviewShown[] | undefined): PagePreview[] | null {
  if (previews === undefined) return null;
  return previews.map(
    (p): PagePreview =>
      "unavailable" in p
        ? { op: p.op, line: p.site.line, unavailable: p.unavailable }
        : {
            op: p.op,
            line: p.site.line,
            fields: p.fields.map((f) => ({ label: f.label, value: f.value, multiline: f.multiline })),
          },
  );
}

function pageAgentManifests(request: StoredRequest): PageAgentManifests | null {
  const sha256 = request.facts.agentManifests?.sha256;
  if (sha256 === undefined) return null;
  if (request.agent_manifests === undefined)
    return {
      sha256,
      unavailable:
        "The agent manifests were not kept with this request (it was submitted before countersign kept them): only their hash is known.",
    };
  const manifests = storedAgentManifests(request.agent_manifests);
  if (manifests === undefined)
    return {
      sha256,
      unavailable:
        "The agent manifests kept with this request cannot be read as action manifests by this version of countersign.",
    };
  const args = (a: Record<string, AbstractValue>) =>
    Object.entries(a).map(([name, v]) => ({ name, value: describeArgument(v) }));
  return {
    sha256,
    actions: manifests.map((m): PageAgentAction => {
      const op = `${AGENT_CONNECTOR}.${m.name}`;
      return {
        op,
        description: m.description,
        approval_required: m.approval.required,
        idempotent: m.idempotent,
        inputs: m.inputs.map((i) => ({ name: i.name, type: i.type, required: i.required, description: i.description })),
        steps: m.execute.map((step) => ({
          id: step.id,
          op: `${step.connector}.${step.op}`,
          inputs: Object.entries(step.inputs).map(([name, value]) => ({ name, value: JSON.stringify(value) })),
          calls: request.facts.effects
            .filter((e) => e.agentAction?.op === op && e.agentAction.step === step.id)
            .map((e) => ({
              line: e.site.line,
              column: e.site.column,
              count: describeCount(e.count),
              args: args(e.args),
            })),
        })),
      };
    }),
  };
}

/** Every string of the page through visibleText: the agent chose most of them, and a third party the previews. */
function visibleStrings<T>(value: T): T {
  if (typeof value === "string") return visibleText(value) as T;
  if (Array.isArray(value)) return value.map(visibleStrings) as T;
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visibleStrings(v)])) as T;
  return value;
}

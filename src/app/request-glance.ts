import {
  canonicalJson,
  describeEffectConstraint,
  isPathUnder,
  matchOp,
  provenanceOf,
  satisfiesCall,
} from "../constraint/index.js";
import { everyResultField, type ManifestSet } from "../manifest/index.js";
import { REMEMBERED_PREFIX } from "../policy/index.js";
import type {
  AbstractValue,
  CountRange,
  Effect,
  EffectConstraint,
  Json,
  PreviewShown,
  Provenance,
  StoredRequest,
} from "../model/index.js";
import { constantStrings, howMany, listWords, readWords, total, hostWords } from "./plain-words.js";
import { previewArgs } from "./preview-args.js";
import { MAX_PREVIEWS } from "./preview-request.js";
import { visibleText } from "./visible-text.js";

/** One thing a person should weigh before deciding, most serious first on a page. */
export interface PageRisk {
  kind: RiskKind;
  level: "danger" | "warning";
  label: string; // a few words, for a marker in a list row
  text: string; // one plain sentence
}

/**
 * - refused_at_send: what a preview shows contradicts a guarantee: the run will be refused at the send
 * - preview_unavailable: a preview of an effect could not be had: the person cannot see what it acts on
 * - untrusted_values: a value the program passes derives from third-party content
 * - mail_to_others: the program sends email
 * - files_outside: it writes files outside the folders the file connection is given
 * - unbounded: no static bound on how many calls it makes
 */
export type RiskKind =
  | "refused_at_send"
  | "preview_unavailable"
  | "untrusted_values"
  | "mail_to_others"
  | "files_outside"
  | "unbounded";

/** A request at a glance: one sentence of what will happen, and what to weigh, ranked. */
export interface RequestGlance {
  headline: string;
  risks: PageRisk[];
}

export interface GlanceOptions {
  manifests?: ManifestSet; // which results are the program's own (every result field `made`), which inputs are resolved
  previews?: readonly PreviewShown[]; // fetched for this showing; none for a list row
  fileRoots?: readonly string[]; // the file connection's roots, when known
}

/** Who decided a request: a person, the policy's own rules, or a rule a person saved with "approve and remember". */
export type DecidedBy = "person" | "policy" | "remembered_rule";

export function decidedBy(request: Pick<StoredRequest, "decision" | "policy">): DecidedBy {
  if (request.decision?.approver != null) return "person";
  const allowed = request.policy.effects.length > 0 && request.policy.kind === "auto_approved";
  return allowed && rememberedRules(request).length > 0 ? "remembered_rule" : "policy";
}

/** The ids of the remembered rules among those that decided a request's calls, once each. */
export function rememberedRules(request: Pick<StoredRequest, "policy">): string[] {
  return [
    ...new Set(request.policy.effects.flatMap((e) => (e.rule?.startsWith(REMEMBERED_PREFIX) === true ? [e.rule] : []))),
  ];
}

/**
 * Whether a source is the result of the program's own earlier call that made something (a draft it created), not
 * third-party content.
 */
export function isOwnResult(p: Provenance, manifests: ManifestSet | undefined): boolean {
  if (p.op === undefined || manifests === undefined || !p.source.startsWith("result of ")) return false;
  const manifest = manifests.actions.get(p.op)?.manifest;
  return manifest !== undefined && everyResultField(manifest, "made") && p.source === `result of ${p.op}`;
}

/**
 * Sources as a page names them: the result of the program's own earlier call that made something
 * (a draft's id) is said to be that, and not marked untrusted; every other source as it is.
 */
export function ownSources(manifests: ManifestSet | undefined, calls: readonly Effect[]) {
  const own = (p: Provenance) => isOwnResult(p, manifests);
  const source = (p: Provenance): Provenance =>
    own(p)
      ? {
          source: `what its own ${p.op} call made (line ${calls.find((c) => c.op === p.op)?.site.line ?? "?"}), not third-party content`,
          untrusted: false,
        }
      : p;
  const value = (v: AbstractValue): AbstractValue => {
    if (v.kind === "unknown" || v.kind === "string") return { ...v, provenance: v.provenance.map(source) };
    if (v.kind === "array") return { ...v, element: value(v.element) };
    if (v.kind === "record")
      return { ...v, fields: Object.fromEntries(Object.entries(v.fields).map(([k, f]) => [k, value(f)])) };
    return v;
  };
  return { own, source, value };
}

/** The headline and the ranked risks of a request, from its facts (and the previews of this showing). */
export function requestGlance(request: StoredRequest, options: GlanceOptions = {}): RequestGlance {
  const effects = request.facts.effects;
  return {
    headline: visibleText(headline(effects, options)),
    risks: risks(request, options).map((r) => ({ ...r, text: visibleText(r.text), label: visibleText(r.label) })),
  };
}

// ---------------------------------------------------------------------------------------------
// The headline: verbs and objects, from the facts alone.

interface Phrase {
  order: number;
  verb: string; // "Sends", "Writes"
  noun: [string, string]; // singular, plural
  objects: string; // " to ann@example.com", ": /…/a.txt, /…/b.txt"
  range: CountRange; // how many calls, all of the op's call sites together
}

const MAX_OBJECTS = 3;
/** Beyond this a value is cut short in the headline: the details below show it whole. */
const MAX_OBJECT_CHARS = 80;

function headline(effects: readonly Effect[], options: GlanceOptions): string {
  if (effects.length === 0) return "Makes no trusted call: it reads, writes and sends nothing.";
  const groups = new Map<string, Effect[]>();
  for (const e of effects) groups.set(e.op, [...(groups.get(e.op) ?? []), e]);
  const phrases = [...groups.entries()]
    .map(([op, list]) => phrase(op, list, effects, options))
    .sort((a, b) => a.order - b.order);
  const parts = phrases.map(
    (p, i) => `${i === 0 ? p.verb : p.verb.toLowerCase()} ${howMany(p.range, p.noun)}${p.objects}`,
  );
  const sentence = parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)!}`;
  return `${sentence}.`;
}

function phrase(op: string, list: Effect[], all: readonly Effect[], options: GlanceOptions): Phrase {
  const [connector, action = ""] = op.split(".");
  const range = total(list);
  const words = ((): Omit<Phrase, "range"> => {
    if (connector === "email" && action.startsWith("send")) {
      const shown =
        previewedValues(op, list, options.previews, RECIPIENTS) ??
        ownDrafts(list, all, options) ??
        objects(list, RECIPIENTS, all, options, "address");
      return { order: 0, verb: "Sends", noun: ["email", "emails"], objects: shown === "" ? "" : ` to ${shown}` };
    }
    if (connector === "email" && /^(draft|create)/.test(action))
      return {
        order: 4,
        verb: "Creates",
        noun: ["draft email", "draft emails"],
        objects: withTo(objects(list, RECIPIENTS, all, options, "address")),
      };
    if (connector === "fs" && /^(write|delete|remove|move|append|create|mkdir)/.test(action))
      return {
        order: 1,
        verb: "Writes",
        noun: ["file", "files"],
        objects: colon(objects(list, ["path"], all, options, "path")),
      };
    if (connector === "http" && action !== "get" && action !== "head")
      return {
        order: 2,
        verb: "Sends",
        noun: [`${action.toUpperCase()} request`, `${action.toUpperCase()} requests`],
        objects: withTo(objects(list, ["url"], all, options, "url")),
      };
    if (connector === "http")
      return {
        order: 5,
        verb: "Fetches",
        noun: ["web address", "web addresses"],
        objects: colon(objects(list, ["url"], all, options, "url")),
      };
    if (connector === "fs" && action.startsWith("list"))
      return {
        order: 6,
        verb: "Lists",
        noun: ["folder", "folders"],
        objects: colon(objects(list, ["path"], all, options, "path")),
      };
    if (connector === "fs")
      return {
        order: 6,
        verb: "Reads",
        noun: ["file", "files"],
        objects: colon(objects(list, ["path"], all, options, "path")),
      };
    if (connector === "email" && action.startsWith("list"))
      return {
        order: 6,
        verb: "Runs",
        noun: ["mailbox search", "mailbox searches"],
        objects: colon(
          listWords([
            ...new Set(list.flatMap((e) => (e.args.q === undefined ? [] : (constantStrings(e.args.q) ?? [])))),
          ]),
        ),
      };
    if (connector === "email")
      return {
        order: 6,
        verb: "Reads",
        noun: [thing(action), `${thing(action)}s`],
        objects: colon(
          listWords([...new Set(list.flatMap((e) => Object.values(e.args).flatMap((v) => constantStrings(v) ?? [])))]),
        ),
      };
    return { order: 3, verb: "Makes", noun: [`${op} call`, `${op} calls`], objects: "" };
  })();
  return { ...words, range };
}

const RECIPIENTS = ["to", "cc", "bcc"] as const;

/**
 * For a send that names no recipients but a draft its own earlier call made (send_draft with the
 * id draftEmail returned), the recipients that call gave the draft, said as such; null otherwise.
 */
function ownDrafts(list: readonly Effect[], all: readonly Effect[], options: GlanceOptions): string | null {
  if (list.some((e) => RECIPIENTS.some((n) => e.args[n] !== undefined))) return null;
  const sources = list.flatMap((e) => Object.values(e.args).flatMap(provenanceOf));
  if (sources.length === 0 || !sources.every((p) => isOwnResult(p, options.manifests))) return null;
  const makers = all.filter((e) => sources.some((p) => p.op === e.op));
  const recipients = objects(makers, RECIPIENTS, all, options, "address");
  return recipients === "" ? null : `${recipients} (the draft it creates)`;
}

const withTo = (text: string) => (text === "" ? "" : ` to ${text}`);
const colon = (text: string) => (text === "" ? "" : `: ${text}`);

/**
 * For a resolved send with a preview (a draft), the recipients the preview shows, said as such; null when none was
 * shown.
 */
function previewedValues(
  op: string,
  list: readonly Effect[],
  previews: readonly PreviewShown[] | undefined,
  inputs: readonly string[],
): string | null {
  // Only for calls that name no recipients themselves: a preview then shows whom the draft goes to.
  if (previews === undefined || list.every((e) => inputs.some((n) => e.args[n] !== undefined))) return null;
  const shown = previews.filter((p) => p.op === op && "fields" in p);
  if (shown.length === 0) return null;
  const values = new Set<string>();
  for (const p of shown)
    for (const f of "fields" in p ? p.fields : [])
      if (inputs.includes(f.label.toLowerCase()) && f.value !== "n/a" && f.value !== "") values.add(f.value);
  return values.size === 0 ? null : `${listWords([...values])} (as the preview shows)`;
}

type Kind = "address" | "path" | "url";

/** What the calls' arguments `names` can be, in a few words: the values themselves, or where they come from. */
function objects(
  list: readonly Effect[],
  names: readonly string[],
  all: readonly Effect[],
  options: GlanceOptions,
  kind: Kind,
): string {
  const values = new Set<string>();
  const described = new Set<string>();
  for (const e of list) {
    for (const n of names) {
      const v = e.args[n];
      if (v === undefined) continue;
      const known = constantStrings(v);
      if (known !== null) for (const k of known) values.add(short(k, kind));
      else described.add(origin(v, all, options, kind));
    }
    if (names.every((n) => e.args[n] === undefined) && kind === "address") {
      // A send that names no recipients (a draft's send): whose they are is read when it is shown or sent.
      const ids = Object.values(e.args).flatMap((v) => constantStrings(v) ?? []);
      described.add(
        ids.length === 0
          ? "the recipients of a draft"
          : `the recipients of draft ${listWords(ids.map((id) => short(id, kind)))}`,
      );
    }
  }
  const shown = [...values];
  const head =
    shown.length > MAX_OBJECTS
      ? `${shown.slice(0, MAX_OBJECTS).join(", ")} and ${shown.length - MAX_OBJECTS} more`
      : listWords(shown);
  return [head, ...described].filter((t) => t !== "").join(" and ");
}

/** A path as the headline shows it: its last two parts (the page's details have it whole); a URL by its host. */
function short(text: string, kind: Kind): string {
  if (text.length > MAX_OBJECT_CHARS) return `${text.slice(0, MAX_OBJECT_CHARS - 1)}…`;
  if (kind === "url") return hostWords(text);
  if (kind !== "path") return text;
  const parts = text.split("/").filter((p) => p !== "");
  return parts.length <= 3 ? text : `/…/${parts.slice(-2).join("/")}`;
}

/**
 * Where a value only known at run time comes from: "an address read from ticket.txt", "a path known only at run time".
 */
function origin(v: AbstractValue, all: readonly Effect[], options: GlanceOptions, kind: Kind): string {
  const noun = kind === "address" ? "an address" : kind === "path" ? "a path" : "a web address";
  const prefix = v.kind === "string" && v.prefix !== "" ? ` starting ${short(v.prefix, kind)}` : "";
  const sources = provenanceOf(v);
  const third = sources.filter((p) => p.untrusted && !isOwnResult(p, options.manifests));
  if (third.length > 0)
    return `${noun}${prefix} read from ${listWords([...new Set(third.map((p) => sourceName(p, all)))])}`;
  const own = sources.filter((p) => isOwnResult(p, options.manifests));
  if (own.length > 0)
    return `${noun}${prefix} from what its own ${listWords([...new Set(own.map((p) => p.op!))])} call made`;
  return `${noun}${prefix} known only when it runs`;
}

/** A third-party source in a few words: the file, host or draft it was read from. */
const sourceName = (p: Provenance, all: readonly Effect[]): string =>
  p.op === undefined ? p.source : readWords(p.op, all);

/** What a read action reads, from its name: get_draft reads a "draft", read_message a "message". */
const thing = (action: string): string => action.replace(/^(get|read|fetch|list)_/, "").replaceAll("_", " ");

// ---------------------------------------------------------------------------------------------
// The risks, most serious first.

const RANK: Readonly<Record<RiskKind, number>> = {
  refused_at_send: 0,
  preview_unavailable: 1,
  untrusted_values: 2,
  files_outside: 3,
  mail_to_others: 4,
  unbounded: 5,
};

function risks(request: StoredRequest, options: GlanceOptions): PageRisk[] {
  const { effects, guarantees } = request.facts;
  const out: PageRisk[] = [];
  for (const p of options.previews ?? []) {
    if ("unavailable" in p) {
      const e = effects[p.effect];
      if (e !== undefined && madeByItself(e, options.manifests)) out.push(madeAtRunTime(e));
      else {
        const why = p.unavailable.replace(/^Preview unavailable: /, "");
        out.push({
          kind: "preview_unavailable",
          level: "danger",
          label: "preview unavailable",
          text: `Preview unavailable: ${why} — you cannot see ${cannotSee(p.op, p.site.line)}.`,
        });
      }
      continue;
    }
    // The checks the send is held to at run time (the program's guarantees, the policy's guards), on what the preview
    // shows.
    const call = { op: p.op, args: { ...effectConstants(effects[p.effect]), ...fieldsAsInputs(p) } };
    const checks = [
      ...guarantees
        .filter((g) => g.status !== "refuted")
        .map((g) => ({ constraint: g.source, name: `the guarantee ${g.text}` })),
      ...request.policy.guards.map((guard) => ({
        constraint: guard,
        name: `the policy's rule that ${describeEffectConstraint(guard)}`,
      })),
    ];
    // One risk per preview, naming every check that refuses it once (a guard may restate a guarantee).
    const refusing = new Map<string, { constraint: EffectConstraint; name: string }>();
    for (const check of checks) {
      const key = canonicalJson(check.constraint);
      if (!refusing.has(key) && matchOp(check.constraint.op, p.op) && !satisfiesCall(check.constraint, call, []))
        refusing.set(key, check);
    }
    if (refusing.size > 0) {
      const args = Object.assign({}, ...[...refusing.values()].map((r) => r.constraint.args ?? {}));
      out.push({
        kind: "refused_at_send",
        level: "danger",
        label: "will be refused",
        text: `The preview of ${p.op} at line ${p.site.line} shows ${describeFields(p, args)}, which ${listWords([...refusing.values()].map((r) => r.name))} excludes: this run will be refused at the send.`,
      });
    }
  }
  if (options.previews === undefined) out.push(...previewsNotPossible(effects, options.manifests));
  const untrusted = new Map<string, Map<string, Set<string>>>(); // source → op → its inputs that source reaches
  for (const e of effects) {
    for (const [name, v] of Object.entries(e.args)) {
      for (const p of provenanceOf(v)) {
        if (!p.untrusted || isOwnResult(p, options.manifests)) continue;
        const ops = untrusted.get(sourceName(p, effects)) ?? new Map<string, Set<string>>();
        untrusted.set(sourceName(p, effects), ops.set(e.op, (ops.get(e.op) ?? new Set()).add(name)));
      }
    }
  }
  if (untrusted.size > 0) {
    const where = [...untrusted.entries()].map(
      ([source, ops]) =>
        `${source} chooses the ${listWords([...ops.entries()].map(([op, names]) => `${listWords([...names])} of ${op}`))}`,
    );
    out.push({
      kind: "untrusted_values",
      level: "danger",
      label: "untrusted values",
      text: `Third-party content chooses values it passes: ${listWords(where)}.`,
    });
  }
  const roots = options.fileRoots;
  const writes = effects.filter((e) => e.connector === "fs" && !/^(read|list)/.test(e.action));
  if (roots !== undefined && writes.length > 0) {
    const outside = writes.filter((e) => {
      const paths = e.args.path === undefined ? null : constantStrings(e.args.path);
      return paths === null || paths.some((path) => !roots.some((root) => isPathUnder(path, root)));
    });
    if (outside.length > 0)
      out.push({
        kind: "files_outside",
        level: "danger",
        label: "files outside",
        text: `Writes files that may lie outside your folders (${listWords([...roots])}): ${listWords(outside.map((e) => `${e.op} at line ${e.site.line}`))}.`,
      });
  }
  const mail = effects.filter((e) => e.connector === "email" && e.action.startsWith("send"));
  if (mail.length > 0)
    out.push({
      kind: "mail_to_others",
      level: "warning",
      label: "mail to others",
      text: `Sends email to other people: ${howMany(total(mail), ["email", "emails"])}.`,
    });
  const unbounded = effects.filter((e) => e.count.max === null);
  if (unbounded.length > 0)
    out.push({
      kind: "unbounded",
      level: "warning",
      label: "no call limit",
      text: `No static bound on how many times it calls ${listWords([...new Set(unbounded.map((e) => e.op))])}.`,
    });
  return out.sort((a, b) => RANK[a.kind] - RANK[b.kind]);
}

/**
 * Without a showing (a list row), the previews no showing could fetch: an effect whose preview
 * reads a value only known when the program runs.
 */
function previewsNotPossible(effects: readonly Effect[], manifests: ManifestSet | undefined): PageRisk[] {
  const out: PageRisk[] = [];
  for (const e of effects) {
    const template = manifests?.actions.get(e.op)?.templates.preview;
    if (template == null) continue;
    const values = previewArgs(e.args, template, MAX_PREVIEWS);
    if (values.kind !== "unknown") continue;
    out.push(
      madeByItself(e, manifests)
        ? madeAtRunTime(e)
        : {
            kind: "preview_unavailable",
            level: "danger",
            label: "preview unavailable",
            text: `Preview unavailable: the program's ${listWords(values.inputs)} for ${e.op} at line ${e.site.line} is only known when it runs — you cannot see ${cannotSee(e.op, e.site.line)}.`,
          },
    );
  }
  return out;
}

const cannotSee = (op: string, line: number): string =>
  op.startsWith("email.") ? "who gets this mail or what it says" : `what ${op} at line ${line} acts on`;

/**
 * Whether every value an effect takes from elsewhere is what the program's own earlier call made (it sends the draft it
 * created).
 */
function madeByItself(e: Effect, manifests: ManifestSet | undefined): boolean {
  const sources = Object.values(e.args).flatMap(provenanceOf);
  return sources.length > 0 && sources.every((p) => isOwnResult(p, manifests));
}

/**
 * No preview before the run, but what it acts on is what the program itself makes first, with the values the page
 * shows.
 */
function madeAtRunTime(e: Effect): PageRisk {
  return {
    kind: "preview_unavailable",
    level: "warning",
    label: "no preview before it runs",
    text: `No preview of ${e.op} at line ${e.site.line} before it runs: it acts on what the program's own earlier call makes, with the values shown below; it is checked against the guarantees at the send.`,
  };
}

/**
 * A preview's fields as the inputs they show (the field labelled "To" is the input `to`): addresses split into a list.
 */
function fieldsAsInputs(p: Extract<PreviewShown, { fields: unknown }>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const f of p.fields) {
    if (f.value === "n/a") continue;
    const name = f.label.toLowerCase();
    out[name] = ["to", "cc", "bcc"].includes(name) ? addresses(f.value) : f.value;
  }
  return out;
}

/**
 * The addresses of a header value: "Ann <ann@x.com>, bob@y.com" is ["ann@x.com", "bob@y.com"]; a JSON list as it is.
 */
function addresses(text: string): Json {
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed) && parsed.every((x) => typeof x === "string")) return parsed;
  } catch {
    // a header, not JSON
  }
  return text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => /<([^<>]*)>\s*$/.exec(part)?.[1] ?? part);
}

function effectConstants(e: Effect | undefined): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [n, v] of Object.entries(e?.args ?? {}))
    if (v.kind === "const" && v.values.length === 1) out[n] = v.values[0]!;
  return out;
}

function describeFields(
  p: Extract<PreviewShown, { fields: unknown }>,
  args: Readonly<Record<string, unknown>> | undefined,
): string {
  const names = Object.keys(args ?? {});
  const fields = p.fields.filter((f) => names.includes(f.label.toLowerCase()));
  return fields.length === 0 ? "content" : listWords(fields.map((f) => `${f.label} ${f.value}`));
}

import { describeArgument, describeConstraint, describeCount, urlHostPort } from "../constraint/index.js";
import { parseTemplate, type ManifestSet } from "../manifest/index.js";
import type { Effect, EffectVerdict, Facts, Grant, GuaranteeResult, PolicyDecision, ValueConstraint } from "../model/index.js";
import type { PolicyRule } from "../policy/index.js";
import { FACT_STATUS_LABELS } from "./request-page.js";

/**
 * A question the facts answer, and the answer: deterministic lines, derived from the analysis
 * alone. `question` is the question as countersign understood it, in its own words: a surface
 * shows that, never the asker's text (which could come from a crafted link).
 */
export interface FactAnswer {
  topic: "recipients" | "email_count" | "files" | "hosts";
  question: string;
  lines: string[];
}

/**
 * The decision a request was given and the rules of the policy that gave it: `rules` is null when
 * that policy is no longer the one in force (its rules are then not known, only what the decision
 * and its grants recorded).
 */
export interface DecisionRules {
  decision: PolicyDecision;
  rules: readonly PolicyRule[] | null;
}

interface Topic {
  topic: FactAnswer["topic"];
  asks: RegExp; // the question is about this
  connector: string;
  actions: (action: string, question: string) => boolean; // the connector's calls it is about
  args: readonly string[]; // their arguments that answer it
  none: string; // the answer when the program makes no such call
  only?: (rule: string) => string; // what a rule's condition on an argument read at run time lets through
  understood: (question: string) => string;
}

const SENDS = (action: string) => action.startsWith("send");
const WRITES = /\b(writ|wrote|creat|sav|modif|overwrit|chang|touch)/i;
const READS = /\b(read|list|open)/i;

// Checked in this order: "how many emails" is a count, not a question about recipients.
const TOPICS: readonly Topic[] = [
  { topic: "email_count", asks: /\bhow many\b.*\b(e-?mails?|mails?|messages?)\b/i, connector: "email", actions: SENDS, args: [], none: "None: the program sends no email.", understood: () => "How many emails will be sent?" },
  { topic: "recipients", asks: /\b(who|whom|recipients?|addressees?|e-?mailed)\b/i, connector: "email", actions: SENDS, args: ["to", "cc", "bcc"], none: "Nobody: the program sends no email.", only: (rule) => `only addresses ${rule} allows can receive it`, understood: () => "Who will be emailed?" },
  {
    topic: "files",
    asks: /\b(files?|paths?|director(y|ies)|folders?)\b/i,
    connector: "fs",
    // "which files will be written?" asks about writes, "... read?" about reads, "which files?" about both
    actions: (action, q) => WRITES.test(q) === READS.test(q) || WRITES.test(q) !== /^(read|list)/.test(action),
    args: ["path"],
    none: "None: the program makes no such file call.",
    only: (rule) => `only paths ${rule} allows can be used`,
    understood: (q) => `Which files will be ${WRITES.test(q) === READS.test(q) ? "read or written" : WRITES.test(q) ? "written" : "read"}?`,
  },
  { topic: "hosts", asks: /\b(hosts?|domains?|servers?|urls?|sites?|websites?|endpoints?)\b/i, connector: "http", actions: () => true, args: ["url"], none: "None: the program makes no HTTP call.", only: (rule) => `only URLs ${rule} allows can be called`, understood: () => "Which hosts will the program call?" },
];

const INTERROGATIVE = /^(who|whom|what|which|how|where|will|would|does|do|is|are|can|could)\b/i;

/**
 * Answer a question from the facts, without asking the agent: who will be emailed, how many
 * emails, which files, which hosts. The text must be one question and nothing else (a question
 * followed by a request goes to the agent); null when it is not one the facts answer. `set`: the
 * manifests the program was analyzed with, for what a call does not show but acts on (`[resolve]`:
 * the recipients of the draft email.send_draft sends). `decided`: the decision the facts were given,
 * for what an allow rule lets such a read value be (the receipt's grant carries its condition).
 */
export function answerQuestion(facts: Facts, text: string, set: ManifestSet, decided?: DecisionRules): FactAnswer | null {
  const question = text.trim();
  if (question.length === 0 || question.length > 200 || /[\r\n]/.test(question)) return null;
  if (!question.endsWith("?") && !INTERROGATIVE.test(question)) return null;
  if (/[.!?;]\s+\S/.test(question)) return null; // more than one sentence
  const topic = TOPICS.find((t) => t.asks.test(question));
  if (topic === undefined) return null;
  const calls = facts.effects.filter((e) => e.connector === topic.connector && topic.actions(e.action, question));
  const lines = calls.length === 0 ? [topic.none] : topic.topic === "email_count" ? countLines(calls) : calls.map((e) => callLine(e, topic, set, decidedFor(e, facts, decided)));
  for (const g of facts.guarantees) if (bears(g, topic)) lines.push(`Guarantee ${g.text}: ${FACT_STATUS_LABELS[g.status === "refuted" ? "not_proven" : g.status]} (${g.why})`);
  return { topic: topic.topic, question: topic.understood(question), lines };
}

function callLine(e: Effect, topic: Topic, set: ManifestSet, decided: Decided | null): string {
  const names = topic.args;
  const where = `${e.op} at line ${e.site.line} (${describeCount(e.count)} call${e.count.min === 1 && e.count.max === 1 ? "" : "s"})`;
  const shown = names.filter((n) => e.args[n] !== undefined).map((n) => `\`${n}\` ${describeArgument(e.args[n]!)}${hostsOf(e, n)}`);
  const read = resolvedLine(e, names, set);
  if (read !== null) shown.push(read.line);
  const only = read === null || decided === null ? null : allowedLine(read.inputs, topic, decided);
  if (only !== null) shown.push(only);
  return shown.length === 0 ? `${where}: its ${names.join(" / ")} is not among the call's arguments` : `${where}: ${shown.join("; ")}`;
}

/** The asked-about inputs a call does not pass but the wrapper reads before it (`[resolve]`), and the line that says so; or null. */
function resolvedLine(e: Effect, names: readonly string[], set: ManifestSet): { inputs: string[]; line: string } | null {
  const action = set.actions.get(e.op);
  const resolve = action?.manifest.resolve;
  if (action === undefined || resolve === undefined) return null;
  const read = names.filter((n) => e.args[n] === undefined && Object.hasOwn(resolve.inputs, n));
  if (read.length === 0) return null;
  const by = new Set(parseTemplate(resolve.args, []).references.filter((r) => r.reference.source === "args").map((r) => `\`${r.reference.path.slice("args.".length)}\``));
  const from = `${action.connector}.${resolve.op}${by.size === 0 ? "" : ` for the call's ${[...by].join(", ")}`}`;
  const line = `${read.map((n) => `\`${n}\``).join(", ")} is read at run time, from ${from}: the trusted wrapper reads it before each call and checks it against the guarantees and the receipt's grant, refusing a call outside them`;
  return { inputs: read, line };
}

/** One call's verdict, the rule that gave it (undefined: not known now) and the grant of its op. */
interface Decided {
  verdict: EffectVerdict;
  rule: PolicyRule | undefined;
  grant: Grant | undefined;
}

/** What the decision said about `e` (its verdicts are in the order of the facts' effects); null without one. */
function decidedFor(e: Effect, facts: Facts, decided: DecisionRules | undefined): Decided | null {
  const verdict = decided?.decision.effects[facts.effects.indexOf(e)];
  if (decided === undefined || verdict === undefined || verdict.op !== e.op) return null;
  return { verdict, rule: decided.rules?.find((r) => r.id === verdict.rule), grant: decided.decision.grants.find((g) => g.op === e.op) };
}

/**
 * For inputs read at run time, what the allow rule that passed the call lets them be, in the
 * rule's own terms; the grant carries that condition, so the wrapper refuses a call outside it.
 * When the rule is not known now (the policy changed since), the grant's terms. Null when the call
 * was not allowed by a rule or its grant holds none of them.
 */
function allowedLine(inputs: readonly string[], topic: Topic, { verdict, rule, grant }: Decided): string | null {
  if (topic.only === undefined || verdict.verdict !== "allow" || verdict.rule === null || grant === undefined) return null;
  const held = inputs.filter((n) => Object.hasOwn(grant.args, n));
  if (held.length === 0) return null;
  const only = topic.only(`allow rule "${verdict.rule}"`);
  const terms = (source: Readonly<Record<string, ValueConstraint>>) => held.flatMap((n) => (Object.hasOwn(source, n) ? [`every \`${n}\` ${describeConstraint(source[n]!)}`] : [])).join(" and ");
  if (rule === undefined) return `${only}; that policy has changed since, and the receipt's grant requires: ${terms(grant.args)}`;
  const own = terms(rule.when?.args ?? {});
  return own === "" ? null : `${only}: ${own}`;
}

/** For a constant URL, the host it goes to, as the connector checks it. */
function hostsOf(e: Effect, name: string): string {
  const v = e.args[name]!;
  if (name !== "url" || v.kind !== "const") return "";
  const hosts = [...new Set(v.values.flatMap((u) => {
    const target = typeof u === "string" ? urlHostPort(u) : null;
    return target === null ? [] : [`${target.host}:${target.port}`];
  }))];
  return hosts.length === 0 ? "" : ` (host ${hosts.join(", ")})`;
}

function countLines(calls: readonly Effect[]): string[] {
  const min = calls.reduce((n, e) => n + e.count.min, 0);
  const max = calls.some((e) => e.count.max === null) ? null : calls.reduce((n, e) => n + e.count.max!, 0);
  const total = max === null ? `At least ${min}, with no static upper bound.` : min === max ? `Exactly ${max}.` : `Between ${min} and ${max}.`;
  return [total, ...calls.map((e) => `${e.op} at line ${e.site.line}: ${describeCount(e.count)}`)];
}

/** A guarantee that speaks to the question: on the topic's connector, over an argument it is about (or a count, for counts). */
function bears(g: GuaranteeResult, topic: Topic): boolean {
  const connector = g.source.op.split(".")[0];
  if (connector !== topic.connector && connector !== "*") return false;
  return topic.topic === "email_count" ? g.source.count !== undefined : Object.keys(g.source.args ?? {}).some((a) => topic.args.includes(a));
}

import { describeConstraint, provenanceOf } from "../../constraint/index.js";
import { parseTemplate, type ManifestSet } from "../../manifest/index.js";
import { DEFAULT_LIFETIME_SECONDS } from "../../model/index.js";
import type {
  Effect,
  EffectVerdict,
  Facts,
  Grant,
  GuaranteeResult,
  PolicyDecision,
  PreviewShown,
  StoredRequest,
  ValueConstraint,
} from "../../model/index.js";
import type { PolicyRule } from "../../policy/index.js";
import { isOwnResult, requestGlance } from "../request-glance.js";
import { FACT_STATUS_LABELS } from "../request-page.js";
import type { TopicName, Understood } from "./understand.js";
import { howMany, listWords, total } from "../plain-words.js";
import { callLead, doing, sourceWords, valueWords, type Said } from "./words.js";

/**
 * The decision a request was given and the rules of the policy that gave it: `rules` is null when
 * that policy is no longer the one in force (its rules are then not known, only what the decision
 * and its grants recorded).
 */
export interface DecisionRules {
  decision: PolicyDecision;
  rules: readonly PolicyRule[] | null;
}

/** The previews shown to the person for this question, or why there are none. */
export type QuestionPreviews = { shown: readonly PreviewShown[] } | { problem: string };

/** Everything an answer is made from: the facts, and what the person is shown of the request. */
export interface Asked {
  facts: Facts;
  set: ManifestSet; // the manifests the program was analyzed with
  decided?: DecisionRules; // the decision the facts were given
  previews?: QuestionPreviews; // absent: none are part of this answer
  request?: StoredRequest; // the stored request, for its state and what deciding it does
}

/** The topics whose answer reads the previews shown (the draft a send acts on). */
export const PREVIEW_TOPICS: ReadonlySet<TopicName> = new Set(["recipients", "body", "subject", "approve", "sends"]);

/** One question answered: countersign's own words of it, and the answer's lines. */
export interface TopicAnswer {
  question: string;
  lines: string[];
}

export function answerTopic(u: Understood, asked: Asked): TopicAnswer {
  const said: Said = { effects: asked.facts.effects, set: asked.set };
  const a = { ...asked, said };
  switch (u.topic) {
    case "recipients":
      return recipients(u, a);
    case "email_count":
      return emailCount(a);
    case "files":
      return files(u.files ?? "both", a);
    case "hosts":
      return hosts(a);
    case "body":
      return body(u.content ?? "email", a);
    case "subject":
      return subject(a);
    case "untrusted":
      return untrusted(a);
    case "approve":
      return approve(a);
    case "reject":
      return reject(a);
    case "sends":
      return sends(a);
    case "deletes":
      return deletes(a);
    case "times":
      return timesAnswer(a);
    case "reads":
      return reads(a);
    case "guarantees":
      return {
        question: "What does the program guarantee?",
        lines:
          a.facts.guarantees.length === 0
            ? ["The program states no guarantees."]
            : a.facts.guarantees.map(guaranteeLine),
      };
  }
}

type A = Asked & { said: Said };

const isSend = (e: Effect) => e.connector === "email" && e.action.startsWith("send");
const isDraft = (e: Effect) => e.connector === "email" && e.action.startsWith("draft");
const isFileRead = (e: Effect) => e.connector === "fs" && /^(read|list)/.test(e.action);
const isFileWrite = (e: Effect) => e.connector === "fs" && !/^(read|list)/.test(e.action);
const isPost = (e: Effect) => e.connector === "http" && e.action !== "get" && e.action !== "head";
const isRead = (e: Effect) => /^(read|list|get|head|search|fetch)/.test(e.action);

const FIELD_WORDS: Readonly<Record<string, string>> = {
  to: "to",
  cc: "with copies (Cc) to",
  bcc: "with blind copies (Bcc) to",
};
const INPUT_NAMES: Readonly<Record<string, string>> = {
  to: "To address",
  cc: "Cc address",
  bcc: "Bcc address",
  subject: "subject",
  body: "body",
  path: "path",
  url: "web address",
  content: "content",
};

// ---------------------------------------------------------------------------------------------
// Mail.

function recipients(u: Understood, a: A): TopicAnswer {
  const fields = u.fields ?? ["to", "cc", "bcc"];
  const named =
    u.fields === undefined
      ? ""
      : ` (${u.fields.map((f) => (f === "to" ? "To" : f === "cc" ? "Cc" : "Bcc")).join(", ")})`;
  const question = `Who will be emailed${named}?`;
  const sent = a.facts.effects.filter(isSend);
  const drafts = a.facts.effects.filter(isDraft);
  const lines: string[] = [];
  if (sent.length === 0) lines.push("Nobody: the program sends no email.");
  for (const e of sent) {
    const parts = fields
      .filter((f) => e.args[f] !== undefined)
      .map((f) => `${FIELD_WORDS[f]} ${valueWords(e.args[f]!, "address", a.said)}`);
    const resolved = fields.filter((f) => e.args[f] === undefined && resolves(e, f, a.set));
    if (resolved.length > 0) {
      parts.push(`to the recipients of the draft it sends: ${shownField(e, "To", a, "its recipients")}`);
      parts.push(
        "when it is sent, the draft is read again and its recipients are checked against the guarantees and what you approved, and a send outside them is refused",
      );
      if (fields.some((f) => f !== "to")) parts.push("a draft is sent to its To addresses only");
      const only = allowedWords(e, resolved, a);
      if (only !== null) parts.push(only);
    }
    if (parts.length === 0)
      parts.push(
        fields.length === 3
          ? "and its recipients are not among its arguments, so they are not known"
          : `with no ${fields.map((f) => INPUT_NAMES[f]).join(" or ")}`,
      );
    lines.push(`${callLead(e)}, ${parts.join("; ")}.`);
  }
  for (const e of drafts) {
    const to = fields
      .filter((f) => e.args[f] !== undefined)
      .map((f) => `${FIELD_WORDS[f]} ${valueWords(e.args[f]!, "address", a.said)}`);
    lines.push(`${callLead(e)}${to.length === 0 ? "" : `, addressed ${to.join("; ")}`}.`);
  }
  lines.push(...guaranteesOn(a.facts, "email", fields));
  return { question, lines };
}

function emailCount(a: A): TopicAnswer {
  const sent = a.facts.effects.filter(isSend);
  const drafts = a.facts.effects.filter(isDraft);
  const lines: string[] = [];
  if (sent.length === 0) lines.push("None: the program sends no email.");
  else {
    const range = total(sent);
    const all = howMany(range, ["email", "emails"]);
    lines.push(range.min === range.max ? `Exactly ${all}.` : `${capital(all)}.`);
    if (sent.length > 1) for (const e of sent) lines.push(`${callLead(e)}.`);
    else lines.push(`${callLead(sent[0]!)}.`);
  }
  if (drafts.length > 0)
    lines.push(
      `It also creates ${howMany(total(drafts), ["draft", "drafts"])}: a draft is not sent unless the program sends it.`,
    );
  lines.push(
    ...a.facts.guarantees.filter((g) => onConnector(g, "email") && g.source.count !== undefined).map(guaranteeLine),
  );
  return { question: "How many emails will be sent?", lines };
}

function subject(a: A): TopicAnswer {
  return contentOf(
    a,
    "subject",
    "What is the subject of the email?",
    "Subject",
    "None: the program sends and drafts no email.",
  );
}

function body(content: NonNullable<Understood["content"]>, a: A): TopicAnswer {
  if (content === "file") {
    const writes = a.facts.effects.filter(isFileWrite);
    const lines =
      writes.length === 0
        ? ["None: the program writes no file."]
        : writes.map(
            (e) =>
              `${callLead(e)}: ${valueWords(e.args.path ?? { kind: "unknown", provenance: [] }, "path", a.said)}, with the content: ${e.args.content === undefined ? "not among its arguments" : valueWords(e.args.content, "text", a.said)}.`,
          );
    return { question: "What will be written into the files?", lines };
  }
  if (content === "post") {
    const posts = a.facts.effects.filter(isPost);
    const lines =
      posts.length === 0
        ? ["None: the program sends no data to a web address."]
        : posts.map(
            (e) =>
              `${callLead(e)}: ${valueWords(e.args.url ?? { kind: "unknown", provenance: [] }, "url", a.said)}, with the body: ${e.args.body === undefined ? "not among its arguments" : valueWords(e.args.body, "text", a.said)}.`,
          );
    return { question: "What does the program send to web addresses?", lines };
  }
  return contentOf(a, "body", "What does the email say?", "Body", "None: the program sends and drafts no email.");
}

/**
 * The subject or body of every email the program sends or drafts: the argument, or for a draft it sends, the preview's
 * field.
 */
function contentOf(a: A, input: "subject" | "body", question: string, label: string, none: string): TopicAnswer {
  const mail = a.facts.effects.filter((e) => isSend(e) || isDraft(e));
  if (mail.length === 0) return { question, lines: [none] };
  const lines = mail.map((e) => {
    const v = e.args[input];
    if (v !== undefined) return `${callLead(e)}; its ${input} is ${valueWords(v, "text", a.said)}.`;
    if (!resolves(e, input, a.set))
      return `${callLead(e)}; its ${input} is not among its arguments, so it is not known.`;
    const only = allowedWords(e, [input], a);
    return `${callLead(e)}; its ${input} is the draft's: ${shownField(e, label, a, `its ${input}`)}; when it is sent, the draft is read again and exactly what was checked is sent${only === null ? "" : `; ${only}`}.`;
  });
  lines.push(...guaranteesOn(a.facts, "email", [input]));
  return { question, lines };
}

/** Whether the wrapper reads `input` of `e` at run time ([resolve]), because the call does not pass it. */
function resolves(e: Effect, input: string, set: ManifestSet): boolean {
  const resolve = set.actions.get(e.op)?.manifest.resolve;
  return resolve !== undefined && Object.hasOwn(resolve.inputs, input);
}

/** What the previews shown say a field of a resolved call is, or honestly why that is not known. */
function shownField(e: Effect, label: string, a: A, what: string): string {
  const made = madeDraftField(e, label, a, what);
  if (made !== null) return made;
  const index = a.facts.effects.indexOf(e);
  const via = readVia(e, a.set);
  if (a.previews === undefined)
    return `the preview is not part of this answer, so ${what} ${what.endsWith("s") ? "are" : "is"} not known here (read from ${via} when it runs)`;
  if ("problem" in a.previews)
    return `the preview could not be had: ${a.previews.problem}, so ${what} ${what.endsWith("s") ? "are" : "is"} not known`;
  const mine = a.previews.shown.filter((p) => p.effect === index);
  if (mine.length === 0)
    return `no preview of it was shown, so ${what} ${what.endsWith("s") ? "are" : "is"} not known (read from ${via} when it runs)`;
  const said = mine.map((p) => {
    if ("unavailable" in p)
      return `the preview could not be had: ${p.unavailable.replace(/^Preview unavailable: /, "")}, so ${what} ${what.endsWith("s") ? "are" : "is"} not known`;
    const field = p.fields.find((f) => f.label.toLowerCase() === label.toLowerCase());
    const value =
      field === undefined || field.value === "n/a" ? "nothing" : label === "To" ? field.value : quoteField(field.value);
    const which = Object.values(p.args).filter((x): x is string => typeof x === "string");
    return `the draft${which.length === 0 ? "" : ` ${which.join(", ")}`} shown has ${label === "To" ? "To" : `the ${label.toLowerCase()}`} ${value}`;
  });
  return said.join("; ");
}

/**
 * For a send of the draft the program's own earlier call makes (no preview can show it before the
 * run), the field as that call writes it; null when the draft is not the program's own.
 */
function madeDraftField(e: Effect, label: string, a: A, what: string): string | null {
  const sources = Object.values(e.args).flatMap((v) => provenanceOf(v));
  if (sources.length === 0 || !sources.every((p) => isOwnResult(p, a.set))) return null;
  const input = label.toLowerCase();
  const makers = a.facts.effects.filter((m) => sources.some((p) => p.op === m.op) && m.args[input] !== undefined);
  if (makers.length === 0) return null;
  return `the draft the program's own ${listWords(makers.map((m) => `${m.op} call at line ${m.site.line}`))} makes, with ${what} ${listWords(makers.map((m) => valueWords(m.args[input]!, input === "to" || input === "cc" || input === "bcc" ? "address" : "text", a.said)))}`;
}

const quoteField = (text: string) => `"${text.replace(/\r?\n/g, " ↵ ")}"`;

/** "email.get_draft for the call's draft id". */
function readVia(e: Effect, set: ManifestSet): string {
  const action = set.actions.get(e.op);
  const resolve = action?.manifest.resolve;
  if (action === undefined || resolve === undefined) return "the provider";
  const by = [
    ...new Set(
      parseTemplate(resolve.args, [])
        .references.filter((r) => r.reference.source === "args")
        .map((r) => r.reference.path.slice("args.".length).replaceAll("_", " ")),
    ),
  ];
  return `${action.connector}.${resolve.op}${by.length === 0 ? "" : ` for the call's ${listWords(by)}`}`;
}

// ---------------------------------------------------------------------------------------------
// What an allow rule lets a value read at run time be.

interface Decided {
  verdict: EffectVerdict;
  rule: PolicyRule | undefined;
  grant: Grant | undefined;
}

function decidedFor(e: Effect, a: A): Decided | null {
  const decided = a.decided;
  const verdict = decided?.decision.effects[a.facts.effects.indexOf(e)];
  if (decided === undefined || verdict === undefined || verdict.op !== e.op) return null;
  return {
    verdict,
    rule: decided.rules?.find((r) => r.id === verdict.rule),
    grant: decided.decision.grants.find((g) => g.op === e.op),
  };
}

/**
 * For inputs read at run time, what the allow rule that passed the call lets them be, in the
 * rule's own terms; the grant carries that condition, so the wrapper refuses a call outside it.
 * When the rule is not known now (the policy changed since), the grant's terms. Null when the call
 * was not allowed by a rule or its grant holds none of them.
 */
function allowedWords(e: Effect, inputs: readonly string[], a: A): string | null {
  const d = decidedFor(e, a);
  if (d === null || d.verdict.verdict !== "allow" || d.verdict.rule === null || d.grant === undefined) return null;
  const held = inputs.filter((n) => Object.hasOwn(d.grant!.args, n));
  if (held.length === 0) return null;
  const only = `the allow rule "${d.verdict.rule}" lets it through only when`;
  const terms = (source: Readonly<Record<string, ValueConstraint>>) =>
    held
      .flatMap((n) =>
        Object.hasOwn(source, n) ? [`every ${INPUT_NAMES[n] ?? n} ${describeConstraint(source[n]!)}`] : [],
      )
      .join(" and ");
  if (d.rule === undefined)
    return `${only} the approval's terms hold, as that policy has changed since: ${terms(d.grant.args)}`;
  const own = terms(d.rule.when?.args ?? {});
  return own === "" ? null : `${only} ${own}`;
}

// ---------------------------------------------------------------------------------------------
// Files, hosts, reads.

function files(which: "read" | "written" | "both", a: A): TopicAnswer {
  const question = `Which files will be ${which === "both" ? "read or written" : which}?`;
  const calls = a.facts.effects.filter((e) =>
    which === "read" ? isFileRead(e) : which === "written" ? isFileWrite(e) : e.connector === "fs",
  );
  if (calls.length === 0)
    return {
      question,
      lines: [
        `None: the program ${which === "read" ? "reads" : which === "written" ? "writes" : "reads and writes"} no file.`,
        ...guaranteesOn(a.facts, "fs", ["path"], true),
      ],
    };
  const lines = calls.map((e) => {
    const path =
      e.args.path === undefined ? "its path is not among its arguments" : valueWords(e.args.path, "path", a.said);
    const content =
      isFileWrite(e) && e.args.content !== undefined
        ? `, with the content: ${valueWords(e.args.content, "text", a.said)}`
        : "";
    return `${callLead(e)}: ${path}${content}.`;
  });
  lines.push(...guaranteesOn(a.facts, "fs", ["path"], true));
  return { question, lines };
}

function hosts(a: A): TopicAnswer {
  const calls = a.facts.effects.filter((e) => e.connector === "http");
  const question = "Which web addresses will the program call?";
  if (calls.length === 0) return { question, lines: ["None: the program calls no web address."] };
  const lines = calls.map(
    (e) =>
      `${callLead(e)}: ${e.args.url === undefined ? "its address is not among its arguments" : valueWords(e.args.url, "url", a.said)}.`,
  );
  lines.push(...guaranteesOn(a.facts, "http", ["url"]));
  return { question, lines };
}

function reads(a: A): TopicAnswer {
  const question = "What does the program read?";
  const calls = a.facts.effects.filter(isRead);
  const lines = calls.map((e) => `${callLead(e)}: ${objectWords(e, a)}.`);
  for (const e of a.facts.effects.filter((e) => a.set.actions.get(e.op)?.manifest.resolve !== undefined)) {
    lines.push(
      `Before it ${doing(e).replace(/ \(.*\)$/, "")} at line ${e.site.line}, the trusted wrapper reads it from ${readVia(e, a.set)}, to check what is sent.`,
    );
  }
  return {
    question,
    lines: lines.length === 0 ? ["Nothing: the program reads no file, web address or email."] : lines,
  };
}

/** What a call acts on, in words: its path, address, recipients or draft. */
function objectWords(e: Effect, a: A): string {
  if (e.args.path !== undefined) return valueWords(e.args.path, "path", a.said);
  if (e.args.url !== undefined) return valueWords(e.args.url, "url", a.said);
  if (e.args.to !== undefined) return `to ${valueWords(e.args.to, "address", a.said)}`;
  const id = e.args.id ?? e.args.draft_id;
  if (id !== undefined) return `the one with id ${valueWords(id, "text", a.said)}`;
  return "what it acts on is not among its arguments";
}

// ---------------------------------------------------------------------------------------------
// Sends, deletes, how often.

function sends(a: A): TopicAnswer {
  const question = "Does the program send anything out?";
  const out = a.facts.effects.filter((e) => isSend(e) || e.connector === "http");
  const drafts = a.facts.effects.filter(isDraft);
  const lines: string[] = [];
  if (out.length === 0) lines.push("Nothing is sent: the program sends no email and calls no web address.");
  else
    lines.push(
      `Yes: ${listWords(out.map((e) => `line ${e.site.line}`))} ${out.length === 1 ? "sends" : "send"} something out.`,
    );
  for (const e of out) {
    if (isSend(e) && e.args.to === undefined && resolves(e, "to", a.set))
      lines.push(
        `${callLead(e)}, to the recipients of the draft it sends: ${shownField(e, "To", a, "its recipients")}.`,
      );
    else if (e.connector === "http" && !isPost(e))
      lines.push(`${callLead(e)}: ${objectWords(e, a)}; only the address itself reaches that host.`);
    else lines.push(`${callLead(e)}, ${e.connector === "http" ? "to " : ""}${objectWords(e, a)}.`);
  }
  for (const e of drafts) lines.push(`${callLead(e)}; it stays in the mailbox until something sends it.`);
  lines.push(
    ...a.facts.guarantees
      .filter((g) => (onConnector(g, "email") || onConnector(g, "http")) && g.source.count !== undefined)
      .map(guaranteeLine),
  );
  return { question, lines };
}

function deletes(a: A): TopicAnswer {
  const question = "Does the program delete anything?";
  const gone = a.facts.effects.filter((e) => /delete|remove|trash|unlink|rmdir|erase|purge/.test(e.action));
  const writes = a.facts.effects.filter((e) => isFileWrite(e) && !gone.includes(e));
  const lines =
    gone.length === 0
      ? ["Nothing is deleted: none of the program's calls deletes anything."]
      : gone.map((e) => `${callLead(e)}: ${objectWords(e, a)}.`);
  for (const e of writes)
    lines.push(`But writing a file replaces what it held: ${callLead(e).replace(/^At/, "at")}: ${objectWords(e, a)}.`);
  return { question, lines };
}

function timesAnswer(a: A): TopicAnswer {
  const question = "How many times will the program run, and make each call?";
  const lines = [
    "An approval lets the program run once: after its receipt is used, no other is issued for this request.",
  ];
  for (const e of a.facts.effects) lines.push(`${callLead(e)}.`);
  if (a.facts.effects.length === 0) lines.push("It makes no trusted call.");
  const unbounded = a.facts.effects.filter((e) => e.count.max === null);
  if (unbounded.length > 0)
    lines.push(
      `Nothing in the program fixes how many times it calls ${listWords([...new Set(unbounded.map((e) => e.op))])}: only the guarantees and the policy limit it.`,
    );
  lines.push(...a.facts.guarantees.filter((g) => g.source.count !== undefined).map(guaranteeLine));
  return { question, lines };
}

// ---------------------------------------------------------------------------------------------
// Where values come from.

function untrusted(a: A): TopicAnswer {
  const question = "Which values come from third-party content?";
  const third: string[] = [];
  const own: string[] = [];
  for (const e of a.facts.effects) {
    for (const [name, v] of Object.entries(e.args)) {
      const sources = provenanceOf(v);
      const outside = sources.filter((p) => p.untrusted && !isOwnResult(p, a.set));
      const mine = sources.filter((p) => isOwnResult(p, a.set));
      const what = `At line ${e.site.line} (it ${doing(e).replace(/ \(.*\)$/, "")}), its ${INPUT_NAMES[name] ?? name.replaceAll("_", " ")}`;
      if (outside.length > 0)
        third.push(`${what} comes from ${listWords([...new Set(outside.map((p) => sourceWords(p, a.said)))])}.`);
      else if (mine.length > 0)
        own.push(`${what} comes from ${listWords([...new Set(mine.map((p) => sourceWords(p, a.said)))])}.`);
    }
    const steer = e.influencedBy;
    if (steer === undefined)
      third.push(
        `Whether line ${e.site.line} runs, how often and with which values is not known to be free of third-party data: take it as steered by it.`,
      );
    else {
      const outside = steer.filter((p) => p.untrusted && !isOwnResult(p, a.set));
      if (outside.length > 0)
        third.push(
          `Whether line ${e.site.line} runs, how often and with which values may depend on ${listWords([...new Set(outside.map((p) => sourceWords(p, a.said)))])}.`,
        );
    }
  }
  const head =
    third.length === 0
      ? "None: no value the program passes comes from third-party content."
      : "These values may be chosen by third-party content (the agent or someone else may control it):";
  return { question, lines: [head, ...third, ...own] };
}

// ---------------------------------------------------------------------------------------------
// Deciding.

const STATUS_WORDS: Readonly<Record<StoredRequest["status"], string>> = {
  pending: "waiting for a decision",
  approved: "approved",
  rejected: "rejected",
  request_more: "sent back to the agent with a request for changes",
  expired: "expired",
  withdrawn: "withdrawn by the agent",
};

function decidedAlready(a: A): string | null {
  const status = a.request?.status;
  return status === undefined || status === "pending"
    ? null
    : `This request is no longer waiting for a decision: it was ${STATUS_WORDS[status]}.`;
}

function approve(a: A): TopicAnswer {
  const question = "What will the program do if I approve?";
  const lines: string[] = [];
  const done = decidedAlready(a);
  if (done !== null) lines.push(done);
  if (a.request !== undefined) {
    const previews = a.previews !== undefined && "shown" in a.previews ? { previews: a.previews.shown } : {};
    const glance = requestGlance(a.request, { manifests: a.set, ...previews });
    lines.push(`If you approve, the program runs once and ${lowerFirst(glance.headline)}`);
    for (const risk of glance.risks) lines.push(`To weigh: ${risk.text}`);
  } else {
    lines.push(
      a.facts.effects.length === 0
        ? "If you approve, the program runs once and makes no trusted call."
        : "If you approve, the program runs once and:",
    );
    for (const e of a.facts.effects) lines.push(`${callLead(e)}.`);
  }
  const minutes = DEFAULT_LIFETIME_SECONDS / 60;
  lines.push(
    `Approving gives the agent a receipt for exactly this program (its fingerprint starts ${a.facts.program.sha256.slice(0, 12)}), valid for ${minutes} minutes once issued; after a receipt is used, no other is issued for this request.`,
    "As it runs, each call is checked against what you approved and the guarantees; a call outside them is refused.",
  );
  if (
    a.facts.effects.some(
      (e) =>
        a.set.actions.get(e.op)?.manifest.resolve !== undefined && a.set.actions.get(e.op)?.templates.preview != null,
    )
  ) {
    lines.push(
      "A draft it sends is bound as the page showed it when you approve: if its recipients, subject or body differ at the send, the send is refused.",
    );
  }
  lines.push(...a.facts.guarantees.map(guaranteeLine));
  return { question, lines };
}

function reject(a: A): TopicAnswer {
  const question = "What happens if I reject?";
  const done = decidedAlready(a);
  const lines = [
    "If you reject, the request ends with the reason you write: no receipt is issued, so the program does not run and none of its calls happen.",
    "The agent is told that it was rejected, and your reason.",
    "To have the agent change the program instead, write what to change: that goes to the agent as a request for changes, and it can submit a new program.",
  ];
  if (a.request !== undefined)
    lines.push(
      `If nobody decides before ${when(a.request.deadline_at)}, the request expires and the program does not run.`,
    );
  return { question, lines: done === null ? lines : [done] };
}

const when = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);
const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

// ---------------------------------------------------------------------------------------------
// Guarantees.

function onConnector(g: GuaranteeResult, connector: string): boolean {
  const c = g.source.op.split(".")[0];
  return c === connector || c === "*";
}

/**
 * The guarantees on a connector over any of the arguments `names` (or, with `counts`, over how many calls it makes).
 */
function guaranteesOn(facts: Facts, connector: string, names: readonly string[], counts = false): string[] {
  return facts.guarantees
    .filter(
      (g) =>
        onConnector(g, connector) &&
        (Object.keys(g.source.args ?? {}).some((n) => names.includes(n)) || (counts && g.source.count !== undefined)),
    )
    .map(guaranteeLine);
}

function guaranteeLine(g: GuaranteeResult): string {
  return `Guarantee ${g.text.replace(/`([^`]*)`/g, '"$1"')}: ${FACT_STATUS_LABELS[g.status === "refuted" ? "not_proven" : g.status]} (${plain(g.why)})`;
}

/** The analysis's own wording, without code marks around names ("every to is in …") or "1 calls". */
function plain(text: string): string {
  return text.replace(/`([^`]*)`/g, "$1").replace(/\b1 (\S+) calls\b/g, "1 $1 call");
}

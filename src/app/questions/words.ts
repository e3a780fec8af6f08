import { provenanceOf } from "../../constraint/index.js";
import type { ManifestSet } from "../../manifest/index.js";
import type { AbstractValue, CountRange, Effect, Provenance } from "../../model/index.js";
import { constantStrings, howMany, listWords, orWords, readWords, hostWords } from "../plain-words.js";
import { isOwnResult } from "../request-glance.js";

/** Plain words for what the facts say: calls, counts, values and where values come from. */

/** "once", "twice", "3 times", "up to 3 times", "1 to 3 times", "at least once, with no fixed limit". */
export function times(range: CountRange): string {
  const n = (k: number) => (k === 1 ? "once" : k === 2 ? "twice" : `${k} times`);
  if (range.max === null)
    return range.min === 0
      ? "any number of times, with no fixed limit"
      : `at least ${n(range.min)}, with no fixed limit`;
  if (range.min === range.max) return range.max === 0 ? "never" : n(range.max);
  if (range.min === 0) return range.max === 1 ? "at most once" : `up to ${range.max} times`;
  return `${range.min} to ${range.max} times`;
}

/** What one call does, as a verb phrase: "sends an email", "writes a file". */
export function doing(e: Effect): string {
  const known: Record<string, string> = {
    "email.send_email": "sends an email",
    "email.send_draft": "sends a draft email",
    "email.draft_email": "creates a draft email",
    "email.get_draft": "reads a draft email",
    "email.list_messages": "lists messages in your mailbox",
    "email.get_message": "reads an email in your mailbox",
    "fs.read_file": "reads a file",
    "fs.write_file": "writes a file",
    "fs.list_dir": "lists a folder",
    "http.get": "fetches a web address",
    "http.post": "sends data to a web address",
  };
  const what = known[e.op] ?? `makes the call ${e.op}`;
  return e.agentAction === undefined ? what : `${what}, as a step of the agent's own action ${e.agentAction.op}`;
}

/** What a call's verb leaves unsaid that a person should know. */
const NOTES: Readonly<Record<string, string>> = {
  "email.draft_email": "a draft is not sent by this call",
  "fs.write_file": "creating it, or replacing what it held",
  "http.post": "an HTTP POST",
};

/**
 * "At line 12 it sends an email once", "At line 10 it creates a draft email once (a draft is not sent by this call)".
 */
export function callLead(e: Effect): string {
  const note = NOTES[e.op];
  return `At line ${e.site.line} it ${doing(e)} ${times(e.count)}${note === undefined ? "" : ` (${note})`}`;
}

/** The most characters of a text quoted whole; a longer one is cut, saying how long it is. */
const MAX_QUOTE = 400;

/** A text quoted: line breaks shown as ↵, cut past MAX_QUOTE characters. */
export function quote(text: string): string {
  const shown = text.replace(/\r?\n/g, " ↵ ");
  return shown.length <= MAX_QUOTE
    ? `"${shown}"`
    : `"${shown.slice(0, MAX_QUOTE - 1)}…" (${text.length} characters in all)`;
}

export type ValueKind = "address" | "path" | "url" | "text";

/** Everything the words need to say where a value comes from. */
export interface Said {
  effects: readonly Effect[];
  set: ManifestSet;
}

/** A value in words: the constants themselves, or its known shape and where it comes from. */
export function valueWords(v: AbstractValue, kind: ValueKind, said: Said): string {
  const shown = (s: string) => (kind === "text" ? quote(s) : kind === "url" ? urlWords(s) : s);
  if (v.kind === "const") {
    const known = constantStrings(v);
    if (known === null)
      return v.values.length === 1
        ? `the fixed value ${quote(JSON.stringify(v.values[0]))}`
        : "one of several fixed values";
    if (v.values.length > 1)
      return `one of ${orWords(v.values.map((x) => listWords((constantStrings({ kind: "const", values: [x] }) ?? []).map(shown))))}`;
    return known.length === 0 ? "nothing (an empty list)" : listWords(known.map(shown));
  }
  if (v.kind === "array") {
    const each = constantStrings(v.element);
    if (
      each !== null &&
      each.length > 1 &&
      v.length.max === 1 &&
      v.element.kind === "const" &&
      v.element.values.length > 1
    )
      return `one of ${orWords(each.map(shown))}`;
    if (each !== null) return listWords(each.map(shown));
    return `a list of ${howMany(v.length, ["item", "items"])}, each ${valueWords(v.element, kind, said)}`;
  }
  const noun =
    kind === "address" ? "an address" : kind === "path" ? "a path" : kind === "url" ? "a web address" : "a text";
  const shape =
    v.kind === "string"
      ? [v.prefix === "" ? "" : `starting ${quote(v.prefix)}`, v.suffix === "" ? "" : `ending ${quote(v.suffix)}`]
          .filter((t) => t !== "")
          .join(" and ")
      : "";
  return `${noun}${shape === "" ? "" : ` ${shape}`} known only when it runs${fromWords(provenanceOf(v), said)}`;
}

/** ", from the file ticket.txt (third-party content)" or "" when the value is the program's own. */
export function fromWords(sources: readonly Provenance[], said: Said): string {
  if (sources.length === 0) return "";
  return `, from ${listWords([...new Set(sources.map((p) => sourceWords(p, said)))])}`;
}

/**
 * One source: "the file ticket.txt (third-party content)", "the draft the program's own email.draft_email call made
 * (not third-party)".
 */
export function sourceWords(p: Provenance, said: Said): string {
  if (isOwnResult(p, said.set)) return `what the program's own ${p.op} call made (its own, not third-party content)`;
  const mark = p.untrusted ? " (third-party content)" : "";
  if (p.op === undefined)
    return p.untrusted ? `${p.source} (of unknown origin: taken as third-party content)` : p.source;
  return `${readWords(p.op, said.effects)}${mark}`;
}

/** "https://ci.example.com/api/status (host ci.example.com)". */
export function urlWords(url: string): string {
  const host = hostWords(url);
  return host === url ? url : `${url} (host ${host})`;
}

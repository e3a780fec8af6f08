import { basename } from "node:path";
import { urlHost as connectorHost } from "../constraint/index.js";
import type { AbstractValue, CountRange, Effect } from "../model/index.js";

// Plain words for what the facts say, shared by the page's headline and risks and by the answers
// to a person's questions: one wording of a count, a list, a host, a source.

/** The strings a value can be, when they are all known (a constant, or a list of constants); null otherwise. */
export function constantStrings(v: AbstractValue): string[] | null {
  if (v.kind === "const") {
    const out: string[] = [];
    for (const x of v.values) {
      if (typeof x === "string") out.push(x);
      else if (Array.isArray(x) && x.every((y): y is string => typeof y === "string")) out.push(...x);
      else return null;
    }
    return out;
  }
  if (v.kind === "array") return constantStrings(v.element);
  return null;
}

/** The sum of the calls' counts. */
export function total(list: readonly Effect[]): CountRange {
  const min = list.reduce((n, e) => n + e.count.min, 0);
  const max = list.some((e) => e.count.max === null) ? null : list.reduce((n, e) => n + e.count.max!, 0);
  return { min, max };
}

/** "1 email", "2 emails", "up to 3 emails", "between 1 and 3 emails", "at least 1 email, with no fixed limit". */
export function howMany(range: CountRange, noun: readonly [string, string]): string {
  const word = (k: number) => `${k} ${k === 1 ? noun[0] : noun[1]}`;
  if (range.max === null)
    return range.min === 0
      ? `any number of ${noun[1]}, with no fixed limit`
      : `at least ${word(range.min)}, with no fixed limit`;
  if (range.min === range.max) return word(range.max);
  if (range.min === 0) return `up to ${word(range.max)}`;
  return `between ${range.min} and ${word(range.max)}`;
}

/** A page's call count with its noun: "1 call", "0..3 calls", "1 or more calls". */
export function callsWords(count: string): string {
  return `${count} call${count === "1" ? "" : "s"}`;
}

/** A list in words: "a", "a and b", "a, b and c". */
export function listWords(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/**
 * The host of a URL, as the connector checks it (with a port that is not the scheme's own); the URL itself when it has
 * none.
 */
export function hostWords(url: string): string {
  return connectorHost(url, false) ?? url;
}

/** A choice in words: "a or b", "a, b or c". */
export function orWords(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

/**
 * What the program's calls of a read op read: "the file notes.txt", "the answer from ci.example.com", "the draft r-1",
 * "a message in your mailbox", or "what op returns".
 */
export function readWords(op: string, effects: readonly Effect[]): string {
  if (op === "email.list_messages") return "the list of messages in your mailbox";
  const calls = effects.filter((e) => e.op === op);
  const named = new Set<string>();
  let unknown = calls.length === 0;
  for (const e of calls) {
    const key = e.args.path ?? e.args.url ?? e.args.id ?? e.args.draft_id;
    const known = key === undefined ? null : constantStrings(key);
    if (known === null) unknown = true;
    else
      for (const k of known)
        named.add(e.args.path !== undefined ? basename(k) : e.args.url !== undefined ? hostWords(k) : k);
  }
  const what = listWords([...named]);
  if ((unknown || named.size === 0) && op === "email.get_message") return "a message in your mailbox";
  if (unknown || named.size === 0 || named.size > 3) return `what ${op} returns`;
  if (op.startsWith("fs.list")) return `the listing of the folder ${what}`;
  if (op.startsWith("fs.")) return `the file ${what}`;
  if (op.startsWith("http.")) return `the answer from ${what}`;
  if (op === "email.get_draft") return `the draft ${what}`;
  if (op === "email.get_message") return `the message ${what}`;
  return `what ${op} returns`;
}

import type { EffectConstraint, JsonType, ValueConstraint } from "../model/index.js";
import type { Json } from "../model/index.js";

/**
 * A value constraint as a predicate in plain words, e.g. "is in [bob@example.com]". Deterministic.
 * Strings of ordinary characters are shown bare, anything else as JSON, so that no value can
 * pose as list punctuation.
 */
export function describeConstraint(c: ValueConstraint): string {
  if ("eq" in c) return `is ${show(c.eq)}`;
  if ("in" in c) return `is in ${list(c.in)}`;
  if ("not_in" in c) return `is not in ${list(c.not_in)}`;
  if ("under" in c) return `is under ${show(c.under)}`;
  if ("glob" in c) return `matches ${show(c.glob)}`;
  if ("mailbox_in" in c)
    return `reaches the mailbox of ${c.mailbox_in.length === 1 ? show(c.mailbox_in[0]!) : `one of ${list(c.mailbox_in)}`} (any +tag${gmailNote(c.mailbox_in)})`;
  if ("mailbox_glob" in c)
    return `reaches a mailbox matching ${show(c.mailbox_glob)} (any +tag${gmailNote([c.mailbox_glob])})`;
  if ("host_in" in c) return `has a host in ${list(c.host_in)}`;
  if ("prefix" in c) return `starts with ${JSON.stringify(c.prefix)}`;
  if ("suffix" in c) return `ends with ${JSON.stringify(c.suffix)}`;
  if ("max_length" in c) return `has length at most ${c.max_length}`;
  if ("min_length" in c) return `has length at least ${c.min_length}`;
  if ("sha256" in c)
    return c.sha256.length === 1
      ? `is the text with SHA-256 ${c.sha256[0]}`
      : `is a text with SHA-256 in ${list(c.sha256)}`;
  if ("type" in c) return `is ${c.type.map((t) => TYPE_WORDS[t]).join(" or ")}`;
  if ("elements" in c) return `is a list whose every element ${grouped(c.elements)}`;
  if ("fields" in c) {
    const fields = Object.entries(c.fields).map(([key, f]) => `${show(key)} ${grouped(f)}`);
    return fields.length === 0 ? "is an empty object" : `is an object with only ${fields.join(", ")}`;
  }
  if ("json" in c) return `is JSON text (each key once) whose value ${grouped(c.json)}`;
  if ("at" in c) return `at ${c.at.path} ${grouped(c.at.is)}`;
  if ("all" in c)
    return c.all.length === 0
      ? "is anything"
      : c.all
          .map((part) => ("fields" in part ? `(${describeConstraint(part)})` : describeConstraint(part)))
          .join(" and ");
  if ("any" in c)
    return `(${c.any.map((part) => ("all" in part ? `(${describeConstraint(part)})` : describeConstraint(part))).join(" or ")})`;
  if ("not" in c) return `does not satisfy (${describeConstraint(c.not)})`;
  if ("untrusted" in c) return c.untrusted ? "may derive from untrusted data" : "never derives from untrusted data";
  if ("from" in c) return `derives from a result of ${list(c.from)}`;
  return JSON.stringify(c);
}

/**
 * An effect constraint in plain words: "every to of email.* is in [bob@example.com]",
 * "at most 3 calls of email.send_*", "no value of to repeats across calls of email.send_*".
 */
export function describeEffectConstraint(c: EffectConstraint): string {
  const parts = Object.entries(c.args ?? {}).map(([input, v]) => `every ${input} of ${c.op} ${describeConstraint(v)}`);
  if (c.count !== undefined)
    parts.push(
      c.count.max === 0
        ? `no call of ${c.op}`
        : `at most ${c.count.max} call${c.count.max === 1 ? "" : "s"} of ${c.op}`,
    );
  if (c.distinct !== undefined) parts.push(`no value of ${c.distinct} repeats across calls of ${c.op}`);
  return parts.length === 0 ? `any call of ${c.op}` : parts.join("; ");
}

// A part that is itself a conjunction, in parentheses so that its "and" stays inside.
function grouped(c: ValueConstraint): string {
  const text = describeConstraint(c);
  return ("all" in c && c.all.length > 1) || "fields" in c ? `(${text})` : text;
}

const TYPE_WORDS: Record<JsonType, string> = {
  string: "a string",
  number: "a number",
  boolean: "a boolean",
  null: "null",
  array: "a list",
  object: "an object",
};

function show(value: Json): string {
  return typeof value === "string" && /^[\w@.+\-/:~*?]+$/.test(value) ? value : JSON.stringify(value);
}

// Gmail's rule is named only where it can apply, so the common description stays short.
function gmailNote(patterns: readonly string[]): string {
  return patterns.some((p) => /@(\*|g\S*mail\.com\.?$)/i.test(p) || p.endsWith("*")) ? "; dots ignored at Gmail" : "";
}

function list(values: readonly Json[]): string {
  return `[${values.map(show).join(", ")}]`;
}

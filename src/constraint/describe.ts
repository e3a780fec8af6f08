import type { EffectConstraint, ValueConstraint } from "../model/constraint.js";
import type { Json } from "../model/json.js";

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
  if ("host_in" in c) return `has a host in ${list(c.host_in)}`;
  if ("max_length" in c) return `has length at most ${c.max_length}`;
  if ("all" in c) return c.all.map(describeConstraint).join(" and ");
  if ("any" in c) return `(${c.any.map((part) => ("all" in part ? `(${describeConstraint(part)})` : describeConstraint(part))).join(" or ")})`;
  if ("not" in c) return `does not satisfy (${describeConstraint(c.not)})`;
  return JSON.stringify(c);
}

/**
 * An effect constraint in plain words: "every `to` of email.* is in [bob@example.com]",
 * "at most 3 calls of email.send_*", "no `to` repeats across calls of email.send_*".
 */
export function describeEffectConstraint(c: EffectConstraint): string {
  const parts = Object.entries(c.args ?? {}).map(([input, v]) => `every \`${input}\` of ${c.op} ${describeConstraint(v)}`);
  if (c.count !== undefined) parts.push(c.count.max === 0 ? `no call of ${c.op}` : `at most ${c.count.max} calls of ${c.op}`);
  if (c.distinct !== undefined) parts.push(`no \`${c.distinct}\` repeats across calls of ${c.op}`);
  return parts.length === 0 ? `any call of ${c.op}` : parts.join("; ");
}

function show(value: Json): string {
  return typeof value === "string" && /^[\w@.+\-/:~*?]+$/.test(value) ? value : JSON.stringify(value);
}

function list(values: readonly Json[]): string {
  return `[${values.map(show).join(", ")}]`;
}

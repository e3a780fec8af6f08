import { matchOp, pathCovers } from "../constraint/index.js";
import type { AbstractValue, Effect, Facts, Provenance } from "../model/index.js";
import type { Policy, TrustedEntry } from "./schema.js";

// Facts and policies are never changed once built: each pair is worked out once.
const trustedFor = new WeakMap<Facts, WeakMap<Policy, Facts>>();

/**
 * The facts as the rules see them under the policy's `[[trusted]]` entries: every untrusted
 * source an entry matches becomes trusted, with the entry named (`trustedBy`), in the arguments,
 * their sources and what influenced each call. The facts themselves when the policy has none.
 */
export function withTrustedSources(facts: Facts, policy: Policy): Facts {
  const entries = policy.trusted ?? [];
  if (entries.length === 0) return facts;
  let byPolicy = trustedFor.get(facts);
  if (byPolicy === undefined) trustedFor.set(facts, (byPolicy = new WeakMap()));
  let out = byPolicy.get(policy);
  if (out === undefined)
    byPolicy.set(policy, (out = { ...facts, effects: facts.effects.map((e) => trustedEffect(e, entries)) }));
  return out;
}

function trustedEffect(effect: Effect, entries: readonly TrustedEntry[]): Effect {
  const sources = (list: readonly Provenance[]) => list.map((p) => trustedSource(p, entries));
  const values = new Map<AbstractValue, AbstractValue>(); // a record's shared parts are worked out once
  const value = (v: AbstractValue): AbstractValue => {
    let done = values.get(v);
    if (done === undefined) values.set(v, (done = trustedValue(v, value, sources)));
    return done;
  };
  return {
    ...effect,
    args: Object.fromEntries(Object.entries(effect.args).map(([name, v]) => [name, value(v)])),
    ...(effect.sources === undefined
      ? {}
      : { sources: Object.fromEntries(Object.entries(effect.sources).map(([name, list]) => [name, sources(list)])) }),
    ...(effect.influencedBy === undefined ? {} : { influencedBy: sources(effect.influencedBy) }),
  };
}

function trustedValue(
  v: AbstractValue,
  value: (v: AbstractValue) => AbstractValue,
  sources: (list: readonly Provenance[]) => Provenance[],
): AbstractValue {
  switch (v.kind) {
    case "const":
      return v;
    case "string":
    case "unknown":
      return { ...v, provenance: sources(v.provenance) };
    case "array":
      return { ...v, element: value(v.element) };
    case "record":
      return { kind: "record", fields: Object.fromEntries(Object.entries(v.fields).map(([k, f]) => [k, value(f)])) };
  }
}

/**
 * The source, trusted when an entry vouches for it. A source of unknown origin (no op) may hold anything: no entry
 * does.
 */
export function trustedSource(p: Provenance, entries: readonly TrustedEntry[]): Provenance {
  if (!p.untrusted || p.op === undefined) return p;
  const entry = entries.find((e) => vouchesFor(e, p));
  return entry === undefined ? p : { ...p, untrusted: false, trustedBy: describeTrustedEntry(entry) };
}

/**
 * An entry vouches for a source when the op matches, the call went to the entry's host (a source
 * without a known host never matches an entry with one), and the source is at or inside one of
 * its fields (a source at `$` may hold any field: only an entry for the whole result covers it).
 */
export function vouchesFor(entry: TrustedEntry, p: Provenance): boolean {
  if (p.op === undefined || !matchOp(entry.op, p.op)) return false;
  if (entry.host !== undefined && entry.host !== p.host) return false;
  return entry.fields === undefined || entry.fields.some((f) => pathCovers(f, p.path ?? "$"));
}

/** `[[trusted]] op = "http.get", host = "api.bank.example", fields = ["$.iban"]`, as the policy says it. */
export function describeTrustedEntry(entry: TrustedEntry): string {
  const host = entry.host === undefined ? "" : `, host = ${JSON.stringify(entry.host)}`;
  const fields =
    entry.fields === undefined ? "" : `, fields = [${entry.fields.map((f) => JSON.stringify(f)).join(", ")}]`;
  return `[[trusted]] op = ${JSON.stringify(entry.op)}${host}${fields}`;
}

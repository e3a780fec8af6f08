import type { AbstractValue } from "../model/index.js";

/** What the manifests say about an op, for checks on inputs a call does not pass. */
export interface EffectOptions {
  /** The inputs the op's action declares; undefined when unknown. */
  inputsOf?(op: string): readonly string[] | undefined;
  /** The inputs the trusted wrapper reads before each call of the op (manifest `[resolve]`). */
  resolvedOf?(op: string): readonly string[] | undefined;
  /** Whether the op only reads (manifest `idempotent = true`). */
  idempotent?(op: string): boolean;
}

/**
 * How to treat a constrained input that a call does not pass:
 * - `null`: the action declares it (an optional input left out), read as null, as the policy does;
 * - `resolved`: the call does not show it, but the trusted wrapper reads it before every call
 *   (manifest `[resolve]`, e.g. `to` on email.send_draft, read from the draft) and checks and
 *   runs with that value: not known statically, checked at run time;
 * - `skip`: the action has no such input and only reads: the constraint is not about it;
 * - `unchecked`: the action has no such input (or nothing is known) and has effects: a call
 *   that cannot show the value is refused at run time.
 */
export function absentInput(
  op: string,
  input: string,
  opts: EffectOptions = {},
): "null" | "resolved" | "skip" | "unchecked" {
  if (opts.inputsOf?.(op)?.includes(input) === true) return "null";
  if (opts.resolvedOf?.(op)?.includes(input) === true) return "resolved";
  return opts.idempotent?.(op) === true ? "skip" : "unchecked";
}

/**
 * An argument as the checks see it: `{ value }` (passed, or null for a declared input left out),
 * or why there is none. Wrapped, so that no argument value can pass for a marker.
 */
export function resolveArg<T>(
  op: string,
  args: Readonly<Record<string, T>>,
  input: string,
  absent: T,
  opts: EffectOptions = {},
): { value: T } | { missing: "resolved" | "skip" | "unchecked" } {
  // Own properties only: an input named `constructor` must not find Object.prototype's.
  if (Object.hasOwn(args, input)) return { value: args[input]! };
  const rule = absentInput(op, input, opts);
  return rule === "null" ? { value: absent } : { missing: rule };
}

/** A declared input the program does not pass, as the static checks see it. */
export const ABSENT: AbstractValue = { kind: "const", values: [null] };

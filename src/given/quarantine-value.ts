import { elementPath, fieldPath, matchOp } from "../constraint/index.js";
import type { HandleDescription, HeldType, HeldValue, Json, ResultPart } from "../model/index.js";

/** What the agent is shown of a run's value, and the quarantined values held back from it. */
export interface Quarantined {
  shown: Json;
  held: HeldValue[];
}

/**
 * Replace every part of `value` that holds untrusted data of a handle op (see `handleOps` of the
 * policy) by a trusted description of it, and hold the value back. A concrete location follows
 * the most specific part that describes it: `$.items[*].body` describes the body of every element,
 * each held as a handle of its own. An untrusted part of unknown origin (no `from`) is held only
 * under `*`: it may be any op's result. Trusted parts stay as they are. Pure; `mintId` names each
 * held value.
 */
export function quarantineValue(
  value: Json,
  parts: readonly ResultPart[],
  handleOps: readonly string[],
  mintId: () => string,
): Quarantined {
  const held: HeldValue[] = [];
  const byPath = new Map(parts.map((p) => [p.path, p]));
  const hold = (v: Json, part: ResultPart, at: string): Json => {
    if (!isHeld(part, handleOps)) return v;
    const id = `h_${mintId()}`;
    held.push({ id, value: v, from: part.from, path: at });
    return describeHeld(id, v, part.from);
  };
  const visit = (v: Json, partPath: string, at: string): Json => {
    const part = byPath.get(partPath);
    if (part !== undefined) return hold(v, part, at);
    const below = parts.filter((p) => p.path.startsWith(`${partPath}.`) || p.path.startsWith(`${partPath}[`));
    // A location no part describes: the run's value is not shaped as the analysis saw it, and it
    // is judged by every part that could describe it (all of them when none is below it).
    if (below.length === 0) return hold(v, merged(parts), at);
    if (Array.isArray(v)) return v.map((element, i) => visit(element, elementPath(partPath), `${at}[${i}]`));
    if (v !== null && typeof v === "object")
      return Object.fromEntries(
        Object.entries(v).map(([key, field]) => [key, visit(field, fieldPath(partPath, key), fieldPath(at, key))]),
      );
    return hold(v, merged(below), at);
  };
  return { shown: visit(value, "$", "$"), held };
}

/** The parts joined into one: untrusted when any is, from every op any comes from. */
function merged(parts: readonly ResultPart[]): ResultPart {
  return {
    path: "",
    from: [...new Set(parts.flatMap((p) => p.from))].sort(),
    untrusted: parts.some((p) => p.untrusted),
  };
}

/** Does this part hold untrusted data that the policy has handed back as a handle? */
function isHeld(part: ResultPart, handleOps: readonly string[]): boolean {
  if (!part.untrusted) return false;
  if (part.from.length === 0) return handleOps.includes("*");
  return part.from.some((op) => handleOps.some((pattern) => matchOp(pattern, op)));
}

/** The trusted words the agent gets in place of a held value. */
export function describeHeld(id: string, value: Json, from: string[]): HandleDescription {
  const type = typeOf(value);
  const length =
    typeof value === "string"
      ? value.length
      : Array.isArray(value)
        ? value.length
        : new TextEncoder().encode(JSON.stringify(value)).length;
  return { $handle: id, type, length, from };
}

function typeOf(value: Json): HeldType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value as "string" | "number" | "boolean" | "object";
}

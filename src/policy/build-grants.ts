import { canonicalJson, implies, matchOp } from "../constraint/index.js";
import type { AbstractValue } from "../model/abstract.js";
import type { EffectConstraint, ValueConstraint } from "../model/constraint.js";
import type { Grant } from "../model/decision.js";
import { CountersignError } from "../model/errors.js";
import type { Effect } from "../model/facts.js";
import type { ManifestSet } from "../manifest/manifest-set.js";
import { totalCount } from "./narrow-effect.js";
import { knownFor } from "./known-for.js";
import { provenShape } from "./proven-shape.js";

/**
 * One grant per op (DESIGN.md section 8), as tight as the facts allow: each argument's proven
 * shape (provenShape), then every known constraint on it (guarantees and guards) that the shape
 * does not already imply; the count is the op's total, capped by count guarantees.
 * `effects` are already narrowed by `known`.
 */
export function buildGrants(effects: readonly Effect[], known: readonly EffectConstraint[], set: ManifestSet): Grant[] {
  const ops = [...new Set(effects.map((e) => e.op))];
  return ops.map((op) => {
    const members = effects.filter((e) => e.op === op);
    const connectorName = members[0]!.connector;
    const connector = set.connectors.get(connectorName);
    if (connector === undefined) {
      throw new CountersignError("config_error", "policy", `no connector manifest "${connectorName}" for ${op}`, { details: { op } });
    }
    const applying = known.filter((k) => matchOp(k.op, op));
    const lists = new Set((set.actions.get(op)?.manifest.inputs ?? []).filter((i) => i.type === "array").map((i) => i.name));
    const names = new Set<string>();
    for (const e of members) for (const name of Object.keys(e.args)) names.add(name);
    for (const k of applying) for (const name of Object.keys(k.args ?? {})) names.add(name);
    const args: Record<string, ValueConstraint> = {};
    for (const name of names) {
      const values = members.map((e) => (Object.hasOwn(e.args, name) ? e.args[name] : undefined));
      const constraint = argConstraint(values, lists.has(name), knownFor(name, applying));
      if (constraint !== undefined) args[name] = constraint;
    }
    const distinct = applying.find((k) => k.distinct !== undefined)?.distinct;
    return {
      op,
      connector: { name: connector.name, sha256: connector.manifest.sha256 },
      args,
      count: { max: totalCount(effects, op, known).max },
      ...(distinct === undefined ? {} : { distinct }),
    };
  });
}

function argConstraint(values: (AbstractValue | undefined)[], isList: boolean, known: ValueConstraint[]): ValueConstraint | undefined {
  const proven = provenShape(values, isList);
  const candidates = proven === undefined ? known : [proven, ...known];
  if (candidates.length <= 1) return candidates[0];
  const seen = new Set<string>();
  const parts: ValueConstraint[] = [];
  for (const c of candidates) {
    const key = canonicalJson(c);
    if (seen.has(key) || (proven !== undefined && c !== proven && implies(proven, c))) continue;
    seen.add(key);
    parts.push(c);
  }
  return parts.length <= 1 ? parts[0] : { all: parts };
}

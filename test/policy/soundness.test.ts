import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchOp, satisfies, satisfiesCall } from "../../src/constraint/index.js";
import type { AbstractValue } from "../../src/model/abstract.js";
import type { EffectConstraint } from "../../src/model/constraint.js";
import type { Effect } from "../../src/model/facts.js";
import type { Json } from "../../src/model/json.js";
import { decide } from "../../src/policy/decide.js";
import { explain } from "../../src/policy/explain.js";
import type { PolicyRule } from "../../src/policy/schema.js";
import { MIDDLES, effect, guarantee, isList, pool, policy, type Op } from "./arbitraries.js";
import { facts, shippedManifests } from "./helpers.js";

/**
 * Soundness against the run-time semantics: for random policies, effects and guarantees, sample
 * concrete runs (the calls a program with these facts could make) that pass the guarantees and
 * the guards. An auto_approved decision must have every such call allowed by an eligible allow
 * rule and matched by no deny or ask rule; a deny verdict must hit every sampled call.
 */

const set = shippedManifests();

interface Call {
  op: string;
  effect: number;
  args: Record<string, Json>;
}

function concrete(v: AbstractValue, op: Op, input: string, rand: () => number): Json {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  if (v.kind === "const") return pick(v.values);
  if (v.kind === "string") return v.prefix + pick(MIDDLES) + v.suffix;
  if (v.kind === "array") {
    const max = v.length.max ?? v.length.min + 3;
    const n = v.length.min + Math.floor(rand() * (max - v.length.min + 1));
    return Array.from({ length: n }, () => concrete(v.element, op, input, rand));
  }
  const any = pick([...pool(op, input), ...MIDDLES]);
  return isList(op, input) ? [any] : any;
}

function sampleRun(effects: Effect[], rand: () => number): Call[] {
  return effects.flatMap((e, index) => {
    const max = e.count.max ?? e.count.min + 3;
    const n = e.count.min + Math.floor(rand() * (max - e.count.min + 1));
    return Array.from({ length: n }, () => ({
      op: e.op,
      effect: index,
      args: Object.fromEntries(Object.entries(e.args).map(([k, v]) => [k, concrete(v, e.op as Op, k, rand)])),
    }));
  });
}

/** Does a run meet an effect constraint, as the wrappers check it call by call? */
function meets(c: EffectConstraint, run: Call[]): boolean {
  return run.every((call, i) => satisfiesCall(c, call, run.slice(0, i)));
}

function distinct(calls: Call[], input: string): boolean {
  const seen = calls
    .flatMap((call) => {
      const v = call.args[input];
      return Array.isArray(v) ? v : v === undefined ? [] : [v];
    })
    .map((v) => JSON.stringify(v));
  return new Set(seen).size === seen.length;
}

/** Does a rule apply to a concrete call in this run? Deny reads list inputs as "any element". */
function applies(r: PolicyRule, call: Call, run: Call[]): boolean {
  if (!matchOp(r.op, call.op)) return false;
  const argsOk = Object.entries(r.when?.args ?? {}).every(([k, c]) => {
    const v = call.args[k]!;
    return r.decision === "deny" && isList(call.op, k) ? !satisfies({ not: c }, v) : satisfies(c, v);
  });
  const count = r.when?.count;
  const countOk = count === undefined || run.filter((c) => matchOp(r.op, c.op)).length <= count.max;
  const distinctOk =
    r.when?.distinct === undefined ||
    distinct(
      run.filter((c) => matchOp(r.op, c.op)),
      r.when.distinct,
    );
  return argsOk && countOk && distinctOk;
}

describe("decide is sound against run-time semantics", () => {
  it("auto_approved runs are allowed, denied effects are always denied", () => {
    fc.assert(
      fc.property(
        policy,
        fc.array(effect, { minLength: 1, maxLength: 4 }),
        fc.array(guarantee, { maxLength: 2 }),
        fc.integer(),
        (p, effects, guarantees, seed) => {
          const f = facts(effects, guarantees);
          const decision = decide(f, p, set);
          let state = seed >>> 0;
          const rand = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
          const runs = Array.from({ length: 25 }, () => sampleRun(effects, rand));
          const known = [...guarantees.map(([g]) => g), ...decision.guards];
          const admitted = runs.filter((run) => known.every((c) => meets(c, run)));
          if (decision.kind === "auto_approved") {
            for (const run of admitted) {
              for (const call of run) {
                const consequential = set.actions.get(call.op)!.manifest.approval.required;
                const rules = p.rules.filter((r) => applies(r, call, run));
                expect(rules.filter((r) => r.decision !== "allow")).toEqual([]);
                expect(rules.some((r) => r.decision === "allow" && (!consequential || r.op === call.op))).toBe(true);
              }
            }
          }
          decision.effects.forEach((v, i) => {
            if (v.verdict !== "deny" || v.rule === null) return;
            const r = p.rules.find((x) => x.id === v.rule)!;
            for (const run of admitted)
              for (const call of run.filter((c) => c.effect === i)) expect(applies(r, call, run)).toBe(true);
          });
        },
      ),
      { numRuns: 600 },
    );
  });

  it("explain agrees with decide", () => {
    fc.assert(
      fc.property(policy, fc.array(effect, { maxLength: 3 }), (p, effects) => {
        const f = facts(effects);
        expect(explain(f, p, set).decision).toEqual(decide(f, p, set));
      }),
      { numRuns: 100 },
    );
  });
});

import type { PolicyDecision, ValueConstraint } from "../model/index.js";
import type { Facts } from "../model/index.js";
import type { ManifestSet } from "../manifest/index.js";
import { matchOp } from "../constraint/index.js";
import { constantSet } from "./constant-set.js";
import { knownFor } from "./known-for.js";
import { describeValue } from "../constraint/index.js";
import { narrowEffect, totalCount, typedEffect } from "./narrow-effect.js";
import type { PolicyRule } from "./schema.js";

/** Every rule "approve and remember" saves has an id starting so: a decision names the remembered rule that gave it. */
export const REMEMBERED_PREFIX = "remembered.";

/**
 * Per op: the narrow allow rule to save, or why none can be made. `binds`: the resolved inputs
 * (a draft's to, subject, body) the rule will hold as the person is shown them, when approving.
 */
export type Remembered = { op: string; rule: PolicyRule; binds?: string[] } | { op: string; rule: null; why: string };

/**
 * For "approve and remember": per op, the narrowest allow rule that auto-approves exactly these
 * effects — every input pinned to its finite set of constants (`in`; list inputs per element),
 * or to the `in` set a guarantee holds it to at every call; calls capped at the program's total. It names the op
 * exactly, so it can lift a consequential
 * action's floor, and it never allows more than this program does: when an input is not a
 * finite constant set or the calls are unbounded, no rule is made for that op.
 *
 * An action that acts on content it resolves (`[resolve]`: send_draft's draft) is remembered with
 * that content, never only the reference: `bound` holds, per op, the resolved inputs as the
 * person was shown them (approval-binding). Without them (`undefined`: the page, before any
 * approval) the rule is the one to save less those inputs, and says which it will bind; with
 * `bound` given but no entry for the op (the content could not be read) no rule is made.
 */
export function rememberRule(
  facts: Facts,
  decision: PolicyDecision,
  set: ManifestSet,
  bound?: ReadonlyMap<string, Record<string, ValueConstraint>>,
): Remembered[] {
  const ops = [...new Set(facts.effects.map((e) => e.op))];
  if (decision.kind === "auto_rejected")
    return ops.map((op) => ({ op, rule: null, why: "the request was rejected; there is nothing to remember" }));
  const known = facts.guarantees.filter((g) => g.status !== "refuted").map((g) => g.source);
  const effects = facts.effects.map((e) => narrowEffect(typedEffect(e, set), known));
  const tag = facts.program.sha256.slice(0, 12);
  return ops.map((op): Remembered => {
    const action = set.actions.get(op);
    if (action === undefined) return { op, rule: null, why: `${op} is not in the manifests` };
    const members = effects.filter((e) => e.op === op);
    const args: NonNullable<PolicyRule["when"]>["args"] = {};
    for (const input of action.manifest.inputs) {
      const values = members.map((e) => e.args[input.name]);
      // A value that is no constant set may still be held to one at every call (an enforced guarantee).
      const pinned =
        constantSet(values, input.type === "array") ??
        knownFor(
          input.name,
          known.filter((k) => matchOp(k.op, op)),
        ).find((c) => "in" in c);
      if (pinned === undefined) {
        const shown = values.map((v) => (v === undefined ? "missing" : describeValue(v))).join("; ");
        return {
          op,
          rule: null,
          why: `${input.name} is ${shown}: only a finite set of constants can be remembered without allowing more`,
        };
      }
      args[input.name] = pinned;
    }
    const max = totalCount(effects, op, known).max;
    if (max === null) return { op, rule: null, why: `the number of ${op} calls is not bounded` };
    const resolved = Object.keys(action.manifest.resolve?.inputs ?? {});
    const rule: PolicyRule = {
      id: `${REMEMBERED_PREFIX}${op}.${tag}`,
      decision: "allow",
      op,
      when: { args, count: { max } },
      reason: `approved and remembered for program ${tag}`,
    };
    if (resolved.length === 0) return { op, rule };
    if (bound === undefined) return { op, rule, binds: resolved };
    const shown = bound.get(op);
    if (shown === undefined || resolved.some((input) => !Object.hasOwn(shown, input))) {
      return {
        op,
        rule: null,
        why: `what ${op} sends (${resolved.join(", ")}) could not be bound as shown: remembering only its reference would allow any content`,
      };
    }
    for (const input of resolved) args[input] = shown[input]!;
    return { op, rule };
  });
}

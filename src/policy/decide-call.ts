import type { AbstractValue, EffectVerdict, Facts, Json, Provenance, Site } from "../model/index.js";
import type { ManifestSet } from "../manifest/index.js";
import { evaluate } from "./evaluate.js";
import type { Policy } from "./schema.js";

/**
 * One concrete call countersign makes itself (a preview's read at approval time), with the exact values it will send.
 */
export interface ConcreteCall {
  op: string;
  args: Readonly<Record<string, Json>>; // by the op's input names, as the connector gets them
  site: Site; // the program's call it is made for
  influencedBy?: readonly Provenance[]; // what that call's control depended on (absent: anything)
}

const NO_PROGRAM = "0".repeat(64);

/**
 * What the policy says about one concrete call: the verdict of the same evaluation every program
 * gets, on a program whose only effect is this call made once with exactly these constants (no
 * guarantee, nothing else known). A preview runs only on "allow".
 */
export function decideCall(call: ConcreteCall, policy: Policy, set: ManifestSet): EffectVerdict {
  const action = set.actions.get(call.op);
  const args: Record<string, AbstractValue> = {};
  for (const [name, value] of Object.entries(call.args)) args[name] = { kind: "const", values: [value] };
  const facts: Facts = {
    program: { sha256: NO_PROGRAM, entry: call.op },
    ok: true,
    diagnostics: [],
    effects: [
      {
        op: call.op,
        connector: action?.connector ?? call.op.split(".")[0]!,
        action: action?.name ?? call.op,
        site: call.site,
        args,
        count: { min: 1, max: 1 },
        sources: Object.fromEntries(Object.keys(args).map((name) => [name, []])),
        ...(call.influencedBy === undefined ? {} : { influencedBy: [...call.influencedBy] }),
      },
    ],
    guarantees: [],
    summary: [],
    rationale: "",
  };
  return evaluate(facts, policy, set, false).decision.effects[0]!;
}

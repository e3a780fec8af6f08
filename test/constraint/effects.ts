// Effects and manifest facts shared by the effect-constraint tests.
import type { AbstractValue, CountRange } from "../../src/model/abstract.js";
import type { Effect } from "../../src/model/facts.js";
import type { EffectOptions } from "../../src/constraint/index.js";

export const INPUTS: Record<string, string[]> = {
  "email.send_email": ["to", "subject"],
  "email.draft_email": ["to", "subject"],
  "email.send_draft": ["draft_id"],
  "email.get_draft": ["id"],
  "fs.write_file": ["path", "content"],
};

export const manifests: EffectOptions = {
  inputsOf: (op) => INPUTS[op],
  idempotent: (op) => op === "email.get_draft",
};

let line = 0;
export function effect(
  op: string,
  args: Record<string, AbstractValue>,
  count: CountRange = { min: 1, max: 1 },
): Effect {
  const [connector = "", action = ""] = op.split(".");
  return { op, connector, action, site: { line: ++line, column: 3 }, args, count };
}

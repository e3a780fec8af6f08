import { holds } from "../../constraint/index.js";
import {
  boundedInputs,
  type AgentAction,
  type Allowlists,
  type ManifestSet,
  type Template,
} from "../../manifest/index.js";
import type { AbstractValue, CountRange, Effect, Site } from "../../model/index.js";
import { constant, unknown } from "../domain/lattice.js";
import { template as concatenate } from "../domain/operators.js";
import { arrayOf } from "../domain/values.js";

/**
 * The effects of one call site of an agent action: one per [[execute]] step, as the trusted op the
 * step calls with the arguments its template builds from the call's (docs/architecture.md section 4). So the
 * guarantees, the policy and the grants see only trusted ops. A later step runs only when the ones
 * before it succeeded: its minimum count is 0. A step's output is data from outside.
 */
export function agentStepEffects(
  action: AgentAction,
  args: Record<string, AbstractValue>,
  site: Site,
  count: CountRange,
): Effect[] {
  const scope = new Map<string, AbstractValue>();
  return action.steps.map((step, i) => {
    const stepArgs = fields(action.templates.execute[i]!, args, scope);
    scope.set(action.manifest.execute[i]!.id, {
      kind: "unknown",
      provenance: [{ source: `result of ${step.op}`, untrusted: true, op: step.op }],
    });
    const origin = {
      op: action.op,
      step: action.manifest.execute[i]!.id,
      description: action.manifest.description,
      args,
    };
    return {
      op: step.op,
      connector: step.connector,
      action: step.name,
      site,
      args: stepArgs,
      count: i === 0 ? count : { min: 0, max: count.max },
      agentAction: origin,
    };
  });
}

/**
 * Why an agent action's step effect can never stay inside its connector's allowlists (a URL on
 * another host, a path outside the roots), with the program's arguments filled in; undefined when
 * it may. What is only possibly outside is left to the grant and the connector at run time.
 */
export function outsideAllowlists(effect: Effect, set: ManifestSet, allowlists: Allowlists): string | undefined {
  const connector = set.connectors.get(effect.connector);
  if (connector === undefined || effect.agentAction === undefined) return undefined;
  for (const { input, constraint, what } of boundedInputs(connector, allowlists)) {
    const value = effect.args[input];
    if (value !== undefined && holds(constraint, value) === "no") {
      return `${effect.agentAction.op} step ${effect.agentAction.step} calls ${effect.op} with ${input} that can never be ${what}`;
    }
  }
  return undefined;
}

/** A step's input record as effect arguments: the fields it sets (an input left out is absent). */
function fields(
  template: Template,
  args: Record<string, AbstractValue>,
  steps: ReadonlyMap<string, AbstractValue>,
): Record<string, AbstractValue> {
  const out: Record<string, AbstractValue> = {};
  if (template.kind === "record") {
    for (const [key, item] of template.fields) {
      const value = fill(item, args, steps);
      if (value !== undefined) out[key] = value;
    }
  } else if (
    template.kind === "literal" &&
    typeof template.value === "object" &&
    template.value !== null &&
    !Array.isArray(template.value)
  ) {
    for (const [key, value] of Object.entries(template.value)) out[key] = constant(value);
  }
  return out;
}

/**
 * A template filled with abstract values, as connector/interpolate.ts fills it with concrete ones:
 * a lone reference keeps its value (absent: the field is dropped), references inside text are
 * stringified, lists and records are built from their parts.
 */
function fill(
  template: Template,
  args: Record<string, AbstractValue>,
  steps: ReadonlyMap<string, AbstractValue>,
): AbstractValue | undefined {
  switch (template.kind) {
    case "literal":
      return constant(template.value);
    case "reference":
      return lookup(template.reference.path, args, steps);
    case "text": {
      const [head, ...rest] = typeof template.parts[0] === "string" ? template.parts : ["", ...template.parts];
      const spans: { value: AbstractValue; text: string }[] = [];
      for (const part of rest) {
        if (typeof part === "string") spans[spans.length - 1]!.text += part;
        else
          spans.push({
            value: lookup(part.path, args, steps) ?? unknown("a missing value (the step fails)"),
            text: "",
          });
      }
      return concatenate(head as string, spans);
    }
    case "list":
      return arrayOf(
        template.items.map((item) => ({ value: fill(item, args, steps) ?? constant(null), spread: false })),
      );
    case "record": {
      const out: Record<string, AbstractValue> = {};
      for (const [key, item] of template.fields) {
        const value = fill(item, args, steps);
        if (value !== undefined) out[key] = value;
      }
      return { kind: "record", fields: out };
    }
  }
}

/** `args.X` is the call's argument X; `<step>.<field>` reads an earlier step's output, which came from outside. */
function lookup(
  path: string,
  args: Record<string, AbstractValue>,
  steps: ReadonlyMap<string, AbstractValue>,
): AbstractValue | undefined {
  const [source, name] = path.split(".") as [string, string];
  if (source === "args") return args[name];
  return steps.get(source) ?? unknown(`${path}, an earlier step's output`, true);
}

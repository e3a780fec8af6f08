import type { FieldPath } from "../model/index.js";
import { listNames } from "./list-names.js";
import { parseTemplate, type Template, type TemplateProblem } from "./template.js";

/** What a `${...}` may name where it appears: declared inputs always, earlier steps only in [[execute]]. */
export interface InterpolationScope {
  inputs: ReadonlyMap<string, unknown>; // keyed by input name, in declaration order
  // the earlier steps by id; null: step results are not available (preview args)
  steps: ReadonlyMap<string, unknown> | null;
}

/** Parse a value's `${args.X}` / `${step.field}` references (strings at any depth) and check each against its scope. */
export function checkInterpolations(
  value: unknown,
  path: FieldPath,
  scope: InterpolationScope,
): { template: Template; problems: TemplateProblem[] } {
  const { template, references, problems } = parseTemplate(value, path);
  for (const { path: at, reference } of references) {
    const problem = checkReference(reference.path, reference.source, scope);
    if (problem !== undefined) problems.push({ path: at, message: problem });
  }
  return { template, problems };
}

function checkReference(reference: string, source: string, scope: InterpolationScope): string | undefined {
  const shown = `"\${${reference}}"`;
  if (source === "args") {
    const input = reference.slice("args.".length);
    if (!input.includes(".") && scope.inputs.has(input)) return undefined;
    if (input.includes("."))
      return `${shown} is not a valid reference: use \${args.<input>}${scope.steps === null ? "" : " or ${<step>.<field>}"}`;
    return `${shown} names no input of this action (inputs: ${listNames(scope.inputs)})`;
  }
  if (scope.steps === null) return `${shown}: preview args can only use \${args.<input>}`;
  if (scope.steps.has(source)) return undefined;
  return `${shown} names no earlier step (earlier steps: ${listNames(scope.steps)})`;
}

import type { FieldPath } from "../model/toml-lines.js";
import { listNames } from "./list-names.js";

/** What a `${...}` may name where it appears: declared inputs always, earlier steps only in [[execute]]. */
export interface Scope {
  inputs: ReadonlyMap<string, unknown>; // keyed by input name, in declaration order
  steps: ReadonlyMap<string, unknown> | null; // the earlier steps by id; null: step results are not available (preview args)
}

export interface InterpolationProblem {
  path: FieldPath;
  message: string;
}

/** Every `${args.X}` / `${step.field}` in a value (strings at any depth) checked against its scope. */
export function checkInterpolations(value: unknown, path: FieldPath, scope: Scope): InterpolationProblem[] {
  if (typeof value === "string") return checkString(value, scope).map((message) => ({ path, message }));
  if (Array.isArray(value)) return value.flatMap((item, i) => checkInterpolations(item, [...path, i], scope));
  if (typeof value === "object" && value !== null && !(value instanceof Date)) {
    return Object.entries(value).flatMap(([key, item]) => checkInterpolations(item, [...path, key], scope));
  }
  return [];
}

function checkString(text: string, scope: Scope): string[] {
  const problems: string[] = [];
  let from = 0;
  for (let start = text.indexOf("${", from); start >= 0; start = text.indexOf("${", from)) {
    const end = text.indexOf("}", start);
    if (end < 0) {
      problems.push(`unterminated "\${" in ${JSON.stringify(text)}`);
      break;
    }
    const problem = checkReference(text.slice(start + 2, end), scope);
    if (problem !== undefined) problems.push(problem);
    from = end + 1;
  }
  return problems;
}

function checkReference(reference: string, scope: Scope): string | undefined {
  const shown = `"\${${reference}}"`;
  const args = /^args\.([a-z][a-z0-9_]*)$/.exec(reference);
  if (args !== null) {
    if (scope.inputs.has(args[1] as string)) return undefined;
    return `${shown} names no input of this action (inputs: ${listNames(scope.inputs)})`;
  }
  const step = /^([a-z][a-z0-9_]*)(?:\.[A-Za-z0-9_]+)+$/.exec(reference);
  if (step === null || step[1] === "args") {
    const forms = scope.steps === null ? "${args.<input>}" : "${args.<input>} or ${<step>.<field>}";
    return `${shown} is not a valid reference: use ${forms}`;
  }
  if (scope.steps === null) return `${shown}: preview args can only use \${args.<input>}`;
  if (scope.steps.has(step[1] as string)) return undefined;
  return `${shown} names no earlier step (earlier steps: ${listNames(scope.steps)})`;
}

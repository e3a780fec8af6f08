import { formatField, type FieldPath } from "../model/index.js";
import { checkInterpolations } from "./check-interpolations.js";
import { listNames } from "./list-names.js";
import type { ActionManifest, PreviewSpec, ResolveSpec } from "./schema.js";
import type { Template } from "./template.js";

type Report = (path: FieldPath, message: string) => void;

/**
 * Each input's first index, duplicates reported (a map, not indexOf: thousands of inputs must not take quadratic time).
 */
export function checkInputNames(action: ActionManifest, error: Report): Map<string, number> {
  return firstByName(action.inputs, ["inputs"], "input", error);
}

/** Each result field's first index, duplicates reported. */
export function checkResultNames(action: ActionManifest, error: Report): Map<string, number> {
  return firstByName(action.result.fields, ["result", "fields"], "result field", error);
}

function firstByName(
  list: readonly { name: string }[],
  at: FieldPath,
  what: string,
  error: Report,
): Map<string, number> {
  const first = new Map<string, number>();
  list.forEach(({ name }, i) => {
    const seen = first.get(name);
    if (seen === undefined) first.set(name, i);
    else error([...at, i, "name"], `duplicate ${what} "${name}" (also ${formatField([...at, seen])})`);
  });
  return first;
}

/**
 * The rules of an `[approval.preview]` once its op is resolved (`target`, shown as `shown`; none:
 * the caller reported why): the op only reads and needs no approval, the args name only inputs,
 * and every multiline label is a render label. Returns the parsed args.
 */
export function checkPreview(
  preview: PreviewSpec,
  target: Target | undefined,
  inputs: ReadonlyMap<string, unknown>,
  error: Report,
): Template {
  const at = ["approval", "preview"];
  const template = checkRead(at, "a preview", preview.args, target, inputs, error);
  const labels = new Set(Object.keys(preview.render));
  preview.multiline.forEach((label, i) => {
    if (!labels.has(label))
      error([...at, "multiline", i], `"${label}" is not a render label (labels: ${listNames(labels)})`);
  });
  return template;
}

type Target = { shown: string; manifest: ActionManifest };

/**
 * The rules of a `[resolve]` once its op is resolved (as for checkPreview): the op only reads and
 * needs no approval, the args name only declared inputs, and no resolved input has the name of a
 * declared one (the program must not be able to pass a value for it). Returns the parsed args.
 */
export function checkResolve(
  resolve: ResolveSpec,
  target: Target | undefined,
  inputs: ReadonlyMap<string, unknown>,
  error: Report,
): Template {
  const at = ["resolve"];
  const template = checkRead(at, "a resolve", resolve.args, target, inputs, error);
  for (const name of Object.keys(resolve.inputs)) {
    if (inputs.has(name))
      error(
        [...at, "inputs", name],
        `"${name}" is a declared input: a resolved input must not be one the call can pass`,
      );
  }
  return template;
}

/**
 * An op run without a receipt of its own must only read and need no approval; its args may use only `${args.<input>}`.
 */
function checkRead(
  at: FieldPath,
  role: string,
  args: Record<string, unknown>,
  target: Target | undefined,
  inputs: ReadonlyMap<string, unknown>,
  error: Report,
): Template {
  if (target !== undefined) {
    if (!target.manifest.idempotent)
      error([...at, "op"], `"${target.shown}" is not idempotent = true, so it cannot run as ${role}`);
    if (target.manifest.approval.required)
      error([...at, "op"], `"${target.shown}" itself requires approval, so it cannot run as ${role}`);
  }
  const checked = checkInterpolations(args, [...at, "args"], { inputs, steps: null });
  for (const problem of checked.problems) error([...problem.path], problem.message);
  return checked.template;
}

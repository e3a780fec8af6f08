import type { FieldPath } from "../model/index.js";
import { checkInterpolations } from "./check-interpolations.js";
import { listNames } from "./list-names.js";
import type { ActionManifest, PreviewSpec } from "./schema.js";
import type { Template } from "./template.js";

type Report = (path: FieldPath, message: string) => void;

/** Each input's first index, duplicates reported (a map, not indexOf: thousands of inputs must not take quadratic time). */
export function checkInputNames(action: ActionManifest, error: Report): Map<string, number> {
  const first = new Map<string, number>();
  action.inputs.forEach(({ name }, i) => {
    const at = first.get(name);
    if (at === undefined) first.set(name, i);
    else error(["inputs", i, "name"], `duplicate input "${name}" (also inputs[${at}])`);
  });
  return first;
}

/**
 * The rules of an `[approval.preview]` once its op is resolved (`target`, shown as `shown`; none:
 * the caller reported why): the op only reads and needs no approval, the args name only inputs,
 * and every multiline label is a render label. Returns the parsed args.
 */
export function checkPreview(preview: PreviewSpec, target: { shown: string; manifest: ActionManifest } | undefined, inputs: ReadonlyMap<string, unknown>, error: Report): Template {
  const at = ["approval", "preview"];
  if (target !== undefined) {
    if (!target.manifest.idempotent) error([...at, "op"], `"${target.shown}" is not idempotent = true, so it cannot run as a preview`);
    if (target.manifest.approval.required) error([...at, "op"], `"${target.shown}" itself requires approval, so it cannot run as a preview`);
  }
  const checked = checkInterpolations(preview.args, [...at, "args"], { inputs, steps: null });
  for (const problem of checked.problems) error([...problem.path], problem.message);
  const labels = new Set(Object.keys(preview.render));
  preview.multiline.forEach((label, i) => {
    if (!labels.has(label)) error([...at, "multiline", i], `"${label}" is not a render label (labels: ${listNames(labels)})`);
  });
  return checked.template;
}

import { basename } from "node:path";
import { checkInterpolations } from "./check-interpolations.js";
import { actionFunctionName, isReservedWord } from "./function-name.js";
import type { ManifestError } from "./manifest-error.js";
import { fieldError, type ManifestFile } from "./manifest-file.js";
import type { ActionManifest } from "./schema.js";

/** What an action's rules may look at beyond its own file. */
export interface ActionContext {
  connector: string; // the directory the action lives in
  actions: ReadonlyMap<string, ActionManifest>; // the schema-valid actions of that connector, by name
  broken: ReadonlySet<string>; // file names (without .toml) of that connector's actions that failed their schema
  connectors: ReadonlySet<string>; // every connector directory of the set
}

/** The cross-file rules of one schema-valid action manifest (DESIGN.md section 5). */
export function checkAction(file: ManifestFile, action: ActionManifest, context: ActionContext): ManifestError[] {
  const errors: ManifestError[] = [];
  const error = (path: (string | number)[], message: string): void => void errors.push(fieldError(file, path, message));

  const fileName = basename(file.rel, ".toml");
  if (action.name !== fileName) error(["name"], `"${action.name}" does not match the file name ${fileName}.toml`);
  const functionName = actionFunctionName(action.name);
  if (isReservedWord(functionName)) error(["name"], `"${action.name}" would export the reserved word ${functionName}`);

  const inputs = action.inputs.map((input) => input.name);
  inputs.forEach((name, i) => {
    const first = inputs.indexOf(name);
    if (first < i) error(["inputs", i, "name"], `duplicate input "${name}" (also inputs[${first}])`);
  });

  const steps = action.execute.map((step) => step.id);
  action.execute.forEach((step, i) => {
    const first = steps.indexOf(step.id);
    if (first < i) error(["execute", i, "id"], `duplicate step id "${step.id}" (also execute[${first}])`);
    if (!context.connectors.has(step.connector)) {
      error(["execute", i, "connector"], `"${step.connector}" is not a connector (connectors: ${[...context.connectors].sort().join(", ")})`);
    }
    const scope = { inputs, steps: steps.slice(0, i) };
    for (const problem of checkInterpolations(step.inputs, ["execute", i, "inputs"], scope)) error([...problem.path], problem.message);
  });

  const preview = action.approval.preview;
  if (preview === undefined) return errors;
  const at = ["approval", "preview"];
  const target = context.actions.get(preview.op);
  if (target === undefined) {
    // An action file that failed its own schema has its errors already; do not repeat them here.
    if (!context.broken.has(preview.op)) error([...at, "op"], `"${preview.op}" is not an action of connector ${context.connector}`);
  } else {
    if (!target.idempotent) error([...at, "op"], `"${preview.op}" is not idempotent = true, so it cannot run as a preview`);
    if (target.approval.required) error([...at, "op"], `"${preview.op}" itself requires approval, so it cannot run as a preview`);
  }
  for (const problem of checkInterpolations(preview.args, [...at, "args"], { inputs, steps: null })) error([...problem.path], problem.message);
  const labels = Object.keys(preview.render);
  preview.multiline.forEach((label, i) => {
    if (!labels.includes(label)) error([...at, "multiline", i], `"${label}" is not a render label (labels: ${labels.join(", ")})`);
  });
  return errors;
}

import { basename } from "node:path";
import { checkInterpolations } from "./check-interpolations.js";
import { checkInputNames, checkPreview, checkResolve, checkResultNames } from "./check-preview.js";
import { listNames } from "./list-names.js";
import { actionFunctionName, isReservedWord } from "./function-name.js";
import type { ManifestError } from "./manifest-error.js";
import type { ActionTemplates } from "./manifest-set.js";
import { fieldError, type ManifestFile } from "./manifest-file.js";
import type { ActionManifest } from "./schema.js";
import type { FieldPath } from "../model/index.js";

/** What an action's rules may look at beyond its own file. */
export interface ActionContext {
  connector: string; // the directory the action lives in
  actions: ReadonlyMap<string, ActionManifest>; // the schema-valid actions of that connector, by name
  broken: ReadonlySet<string>; // file names (without .toml) of that connector's actions that failed their schema
  connectors: ReadonlySet<string>; // every connector directory of the set
  // the functions each connector's plugin exports, where its wasm compiled
  exports: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * The cross-file rules of one schema-valid action manifest (docs/architecture.md section 5), and
 * its parsed templates.
 */
export function checkAction(
  file: ManifestFile,
  action: ActionManifest,
  context: ActionContext,
): { errors: ManifestError[]; templates: ActionTemplates } {
  const errors: ManifestError[] = [];
  const templates: ActionTemplates = { execute: [], preview: null };
  const error = (path: FieldPath, message: string): void => void errors.push(fieldError(file, path, message));

  const fileName = basename(file.rel, ".toml");
  if (action.name !== fileName) error(["name"], `"${action.name}" does not match the file name ${fileName}.toml`);
  const functionName = actionFunctionName(action.name);
  if (isReservedWord(functionName)) error(["name"], `"${action.name}" would export the reserved word ${functionName}`);

  const inputs = checkInputNames(action, error);
  checkResultNames(action, error);
  // The steps may also use the resolved inputs: the values the wrapper read and checked.
  const resolve = action.resolve;
  const stepInputs =
    resolve === undefined
      ? inputs
      : new Map([...inputs, ...Object.keys(resolve.inputs).map((name) => [name, -1] as const)]);

  const steps = new Map<string, number>(); // the steps before the current one
  action.execute.forEach((step, i) => {
    const first = steps.get(step.id);
    if (first !== undefined) error(["execute", i, "id"], `duplicate step id "${step.id}" (also execute[${first}])`);
    if (!context.connectors.has(step.connector)) {
      error(
        ["execute", i, "connector"],
        `"${step.connector}" is not a connector (connectors: ${listNames([...context.connectors].sort())})`,
      );
    }
    const exported = context.exports.get(step.connector);
    if (exported !== undefined && !exported.has(step.op)) {
      error(
        ["execute", i, "op"],
        `"${step.op}" is not exported by the ${step.connector} plugin (exports: ${listNames([...exported].sort())})`,
      );
    }
    const checked = checkInterpolations(step.inputs, ["execute", i, "inputs"], { inputs: stepInputs, steps });
    for (const problem of checked.problems) error([...problem.path], problem.message);
    templates.execute.push(checked.template);
    if (first === undefined) steps.set(step.id, i);
  });

  // A preview or resolve op of the same connector; undefined after reporting why there is none.
  const sibling = (op: string, at: FieldPath) => {
    const target = context.actions.get(op);
    // An action file that failed its own schema has its errors already; do not repeat them here.
    if (target === undefined && !context.broken.has(op))
      error(at, `"${op}" is not an action of connector ${context.connector}`);
    return target === undefined ? undefined : { shown: op, manifest: target };
  };
  if (resolve !== undefined)
    templates.resolve = checkResolve(resolve, sibling(resolve.op, ["resolve", "op"]), inputs, error);
  const preview = action.approval.preview;
  if (preview !== undefined)
    templates.preview = checkPreview(preview, sibling(preview.op, ["approval", "preview", "op"]), inputs, error);
  return { errors, templates };
}

import { checkInterpolations } from "./check-interpolations.js";
import { checkInputNames, checkPreview } from "./check-preview.js";
import { AGENT_CONNECTOR, type Allowlists } from "./agent-actions.js";
import { AGENT_LIMITS } from "./agent-limits.js";
import { listNames } from "./list-names.js";
import type { ManifestError } from "./manifest-error.js";
import { fieldError, type ManifestFile } from "./manifest-file.js";
import type { ActionTemplates, LoadedAction, ManifestSet } from "./manifest-set.js";
import type { ActionManifest } from "./schema.js";
import type { Template } from "./template.js";
import { checkStepBounds } from "./step-bounds.js";
import type { FieldPath } from "../model/index.js";

/**
 * The rules of one schema-valid agent action beyond the shipped ones (issue 14): every step calls
 * a trusted action with inputs it declares; a step's URL or path stays inside the allowlists as
 * far as the manifest shows; the approval floor and idempotence of its steps are kept; a preview
 * is a trusted read without approval; and the limits of AGENT_LIMITS.
 */
export function checkAgentAction(
  file: ManifestFile,
  action: ActionManifest,
  trusted: ManifestSet,
  allowlists: Allowlists,
): { errors: ManifestError[]; templates: ActionTemplates; steps: LoadedAction[]; previewOp: string | null } {
  const errors: ManifestError[] = [];
  const templates: ActionTemplates = { execute: [], preview: null };
  const steps: LoadedAction[] = [];
  const error = (path: FieldPath, message: string): void => void errors.push(fieldError(file, path, message));

  if (action.inputs.length > AGENT_LIMITS.inputs) error(["inputs"], `has ${action.inputs.length} inputs, more than the ${AGENT_LIMITS.inputs} an agent action may declare`);
  if (action.execute.length > AGENT_LIMITS.steps) error(["execute"], `has ${action.execute.length} steps, more than the ${AGENT_LIMITS.steps} an agent action may have`);
  // A resolve op runs without the program's call: only trusted manifests may declare one.
  if (action.resolve !== undefined) error(["resolve"], "only a trusted action may declare [resolve]; an agent action's steps resolve their own inputs");
  if (errors.length > 0) return { errors, templates, steps, previewOp: null };

  const inputs = checkInputNames(action, error);

  let references = 0;
  const ids = new Map<string, number>();
  action.execute.forEach((step, i) => {
    const at = ["execute", i];
    const first = ids.get(step.id);
    if (first !== undefined) error([...at, "id"], `duplicate step id "${step.id}" (also execute[${first}])`);
    const deep = Object.values(step.inputs).some((v) => deeperThan(v, AGENT_LIMITS.depth));
    if (deep) error([...at, "inputs"], `nested more than ${AGENT_LIMITS.depth} levels deep`);
    const checked = checkInterpolations(step.inputs, [...at, "inputs"], { inputs, steps: ids });
    for (const problem of checked.problems) error([...problem.path], problem.message);
    references += referencesIn(checked.template);
    templates.execute.push(checked.template);
    if (first === undefined) ids.set(step.id, i);

    const target = trustedStep(trusted, step.connector, step.op, (field, message) => error([...at, field], message));
    if (target === undefined) return;
    steps.push(target);
    const declared = new Set(target.manifest.inputs.map((input) => input.name));
    for (const key of Object.keys(step.inputs)) {
      if (!declared.has(key)) error([...at, "inputs", key], `is not an input of ${target.op} (inputs: ${listNames([...declared])})`);
    }
    const missing = target.manifest.inputs.filter((input) => input.required && !Object.hasOwn(step.inputs, input.name)).map((input) => input.name);
    if (missing.length > 0) error([...at, "inputs"], `misses required input${missing.length === 1 ? "" : "s"} ${missing.join(", ")} of ${target.op}`);
    if (!deep && checked.problems.length === 0) {
      for (const problem of checkStepBounds(checked.template, trusted.connectors.get(target.connector)!, allowlists)) error([...at, "inputs", ...problem.path], problem.message);
    }
  });
  if (references > AGENT_LIMITS.references) error(["execute"], `holds ${references} \${...} references, more than the ${AGENT_LIMITS.references} an agent action may use`);
  if (steps.length < action.execute.length) return { errors, templates, steps, previewOp: null };

  // Approval floors: an agent action is never less gated, nor more idempotent, than its steps.
  const gated = steps.filter((s) => s.manifest.approval.required).map((s) => s.op);
  if (gated.length > 0 && !action.approval.required) {
    error(["approval", "required"], `must be true: its steps call ${listNames(gated)}, which require approval`);
  }
  const writes = steps.filter((s) => !s.manifest.idempotent).map((s) => s.op);
  if (action.idempotent && writes.length > 0) error(["idempotent"], `cannot be true: its steps call ${listNames(writes)}, which are not idempotent`);

  const preview = action.approval.preview;
  if (preview === undefined) return { errors, templates, steps, previewOp: null };
  const connectors = [...new Set(steps.map((s) => s.connector))];
  const target = connectors.map((c) => trusted.actions.get(`${c}.${preview.op}`)).find((a) => a !== undefined);
  if (target === undefined) error(["approval", "preview", "op"], `"${preview.op}" is not a trusted action of the connectors its steps use (${listNames(connectors)})`);
  templates.preview = checkPreview(preview, target === undefined ? undefined : { shown: target.op, manifest: target.manifest }, inputs, error);
  return { errors, templates, steps, previewOp: target?.op ?? null };
}

/** The trusted action a step names, or undefined after reporting why there is none. */
function trustedStep(trusted: ManifestSet, connector: string, op: string, error: (field: string, message: string) => void): LoadedAction | undefined {
  if (connector === AGENT_CONNECTOR) {
    error("connector", `an agent action cannot call another agent action: name a trusted connector (${listNames([...trusted.connectors.keys()].sort())})`);
    return undefined;
  }
  if (!trusted.connectors.has(connector)) {
    error("connector", `"${connector}" is not a trusted connector (connectors: ${listNames([...trusted.connectors.keys()].sort())})`);
    return undefined;
  }
  const action = trusted.actions.get(`${connector}.${op}`);
  if (action === undefined) {
    const ops = [...trusted.actions.values()].filter((a) => a.connector === connector).map((a) => a.name);
    error("op", `"${op}" is not a trusted action of connector ${connector} (actions: ${listNames(ops.sort())})`);
  }
  return action;
}

/** Whether a value holds tables or arrays nested more than `levels` deep. */
function deeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== "object" || value === null || value instanceof Date) return false;
  return levels === 0 || Object.values(value).some((v) => deeperThan(v, levels - 1));
}

function referencesIn(template: Template): number {
  switch (template.kind) {
    case "literal":
      return 0;
    case "reference":
      return 1;
    case "text":
      return template.parts.filter((p) => typeof p !== "string").length;
    case "list":
      return template.items.reduce((n, t) => n + referencesIn(t), 0);
    case "record":
      return template.fields.reduce((n, [, t]) => n + referencesIn(t), 0);
  }
}

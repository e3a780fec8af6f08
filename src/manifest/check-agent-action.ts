import { checkInterpolations } from "./check-interpolations.js";
import { checkInputNames, checkPreview } from "./check-preview.js";
import { AGENT_CONNECTOR, type Allowlists } from "./agent-actions.js";
import { AGENT_LIMITS } from "./agent-limits.js";
import { listNames } from "./list-names.js";
import type { ManifestError } from "./manifest-error.js";
import { fieldError, type ManifestFile } from "./manifest-file.js";
import type { ActionTemplates, LoadedAction, ManifestSet } from "./manifest-set.js";
import type { ActionManifest } from "./schema.js";
import type { Reference, Template, TemplateProblem } from "./template.js";
import { checkStepBounds } from "./step-bounds.js";
import type { FieldPath } from "../model/index.js";

/**
 * The rules of one schema-valid agent action beyond the shipped ones (docs/architecture.md section
 * 4): every step calls a trusted action with inputs it declares; a step's URL or path stays inside
 * the allowlists as far as the manifest shows; the approval floor and idempotence of its steps are
 * kept; a preview is a trusted read without approval; and the limits of AGENT_LIMITS.
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

  if (action.inputs.length > AGENT_LIMITS.inputs)
    error(
      ["inputs"],
      `has ${action.inputs.length} inputs, more than the ${AGENT_LIMITS.inputs} an agent action may declare`,
    );
  if (action.execute.length > AGENT_LIMITS.steps)
    error(
      ["execute"],
      `has ${action.execute.length} steps, more than the ${AGENT_LIMITS.steps} an agent action may have`,
    );
  // A resolve op runs without the program's call: only trusted manifests may declare one.
  if (action.resolve !== undefined)
    error(["resolve"], "only a trusted action may declare [resolve]; an agent action's steps resolve their own inputs");
  // What a result holds is checked against the trusted manifest of the step that answers it.
  if (action.result.fields.length > 0)
    error(["result"], "only a trusted action may declare [result]; an agent action returns its last step's result");
  if (errors.length > 0) return { errors, templates, steps, previewOp: null };

  const inputs = checkInputNames(action, error);
  const optional = new Set(action.inputs.filter((input) => !input.required).map((input) => input.name));

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
    for (const problem of optionalMisuses(checked.template, [...at, "inputs"], optional))
      error([...problem.path], problem.message);
    references += referencesIn(checked.template);
    templates.execute.push(checked.template);
    if (first === undefined) ids.set(step.id, i);

    const target = trustedStep(trusted, step.connector, step.op, (field, message) => error([...at, field], message));
    if (target === undefined) return;
    steps.push(target);
    const declared = new Set(target.manifest.inputs.map((input) => input.name));
    for (const key of Object.keys(step.inputs)) {
      if (!declared.has(key))
        error([...at, "inputs", key], `is not an input of ${target.op} (inputs: ${listNames([...declared])})`);
    }
    const missing = target.manifest.inputs
      .filter((input) => input.required && !Object.hasOwn(step.inputs, input.name))
      .map((input) => input.name);
    if (missing.length > 0)
      error(
        [...at, "inputs"],
        `misses required input${missing.length === 1 ? "" : "s"} ${missing.join(", ")} of ${target.op}`,
      );
    for (const input of target.manifest.inputs) {
      const given = optionalArgument(checked.template, input.name, optional);
      if (input.required && given !== undefined)
        error(
          [...at, "inputs", input.name],
          `is optional input ${given}, but ${target.op} requires ${input.name}: make ${given} required`,
        );
    }
    if (!deep && checked.problems.length === 0) {
      for (const problem of checkStepBounds(checked.template, trusted.connectors.get(target.connector)!, allowlists))
        error([...at, "inputs", ...problem.path], problem.message);
    }
  });
  if (references > AGENT_LIMITS.references)
    error(
      ["execute"],
      `holds ${references} \${...} references, more than the ${AGENT_LIMITS.references} an agent action may use`,
    );
  if (steps.length < action.execute.length) return { errors, templates, steps, previewOp: null };

  // Approval floors: an agent action is never less gated, nor more idempotent, than its steps.
  const gated = steps.filter((s) => s.manifest.approval.required).map((s) => s.op);
  if (gated.length > 0 && !action.approval.required) {
    error(["approval", "required"], `must be true: its steps call ${listNames(gated)}, which require approval`);
  }
  const writes = steps.filter((s) => !s.manifest.idempotent).map((s) => s.op);
  if (action.idempotent && writes.length > 0)
    error(["idempotent"], `cannot be true: its steps call ${listNames(writes)}, which are not idempotent`);

  const preview = action.approval.preview;
  if (preview === undefined) return { errors, templates, steps, previewOp: null };
  const connectors = [...new Set(steps.map((s) => s.connector))];
  const target = connectors.map((c) => trusted.actions.get(`${c}.${preview.op}`)).find((a) => a !== undefined);
  if (target === undefined)
    error(
      ["approval", "preview", "op"],
      `"${preview.op}" is not a trusted action of the connectors its steps use (${listNames(connectors)})`,
    );
  templates.preview = checkPreview(
    preview,
    target === undefined ? undefined : { shown: target.op, manifest: target.manifest },
    inputs,
    error,
  );
  return { errors, templates, steps, previewOp: target?.op ?? null };
}

/** The trusted action a step names, or undefined after reporting why there is none. */
function trustedStep(
  trusted: ManifestSet,
  connector: string,
  op: string,
  error: (field: string, message: string) => void,
): LoadedAction | undefined {
  if (connector === AGENT_CONNECTOR) {
    error(
      "connector",
      `an agent action cannot call another agent action: name a trusted connector (${listNames([...trusted.connectors.keys()].sort())})`,
    );
    return undefined;
  }
  if (!trusted.connectors.has(connector)) {
    error(
      "connector",
      `"${connector}" is not a trusted connector (connectors: ${listNames([...trusted.connectors.keys()].sort())})`,
    );
    return undefined;
  }
  const action = trusted.actions.get(`${connector}.${op}`);
  if (action === undefined) {
    const ops = [...trusted.actions.values()].filter((a) => a.connector === connector).map((a) => a.name);
    error("op", `"${op}" is not a trusted action of connector ${connector} (actions: ${listNames(ops.sort())})`);
  }
  return action;
}

/**
 * Where a template uses an optional input other than as a field's whole value. A field that is
 * exactly `${args.x}` is left out when x is (connector/interpolate.ts); inside a longer string an
 * absent x has no text, and in a list it would become null: both are refused here, not at the call.
 */
function optionalMisuses(
  template: Template,
  at: FieldPath,
  optional: ReadonlySet<string>,
  inList = false,
): TemplateProblem[] {
  const named = (reference: Reference) =>
    reference.source === "args" && optional.has(reference.path.slice("args.".length))
      ? reference.path.slice("args.".length)
      : undefined;
  switch (template.kind) {
    case "literal":
      return [];
    case "reference": {
      const name = named(template.reference);
      return inList && name !== undefined
        ? [
            {
              path: at,
              message: `puts optional input ${name} in a list, where a missing value has no place: make ${name} required`,
            },
          ]
        : [];
    }
    case "text":
      return template.parts.flatMap((part) => {
        const name = typeof part === "string" ? undefined : named(part);
        return name === undefined
          ? []
          : [
              {
                path: at,
                message: `puts optional input ${name} inside a longer string, which has no text for a missing value: make ${name} required, or pass it as the whole value`,
              },
            ];
      });
    case "list":
      return template.items.flatMap((item, i) => optionalMisuses(item, [...at, i], optional, true));
    case "record":
      return template.fields.flatMap(([key, item]) => optionalMisuses(item, [...at, key], optional));
  }
}

/** The optional input a step's field is exactly, if it is one. */
function optionalArgument(template: Template, field: string, optional: ReadonlySet<string>): string | undefined {
  if (template.kind !== "record") return undefined;
  const value = template.fields.find(([key]) => key === field)?.[1];
  if (value?.kind !== "reference" || value.reference.source !== "args") return undefined;
  const name = value.reference.path.slice("args.".length);
  return optional.has(name) ? name : undefined;
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

import { ts } from "../compile/typescript.js";
import { holdsEffect, matchOp, mentionsSources } from "../../constraint/index.js";
import { EffectConstraint } from "../../model/index.js";
import type { Diagnostic, Effect, GuaranteeResult } from "../../model/index.js";
import type { Json } from "../../model/index.js";
import { effectOptionsOf, type ManifestSet } from "../../manifest/index.js";
import { contractsByConnector } from "../../../trusted/contracts/index.js";
import { diagnosticAt } from "../diagnostic.js";
import { evaluateExpression } from "../interpret/expressions.js";
import type { Interpreter } from "../interpret/interpreter.js";
import { jsonKey, single } from "../domain/lattice.js";
import { clone, type State } from "../interpret/state.js";
import { resolveApiCall } from "../compile/trusted-callee.js";

const STATUS = { yes: "proven", no: "refuted", maybe: "enforced" } as const;

/**
 * Each guarantee evaluated statically to a constraint (an object literal, or a contract helper
 * called with constant arguments), validated against the schema, then checked against the effects:
 * proven (holds for every run), refuted (the program breaks it) or enforced at run time.
 */
export function checkGuarantees(
  it: Interpreter,
  guarantees: readonly ts.Expression[],
  states: { atExport: State; beforeMain: State },
  effects: Effect[],
  set: ManifestSet,
): { results: GuaranteeResult[]; diagnostics: Diagnostic[] } {
  const results: GuaranteeResult[] = [];
  const diagnostics: Diagnostic[] = [];
  const opts = effectOptionsOf(set);
  for (const g of guarantees) {
    const value = constraintOf(it, g, states.atExport);
    if (typeof value === "string") {
      diagnostics.push(diagnosticAt(it.file, g, "invalid_guarantee", value));
      continue;
    }
    // program(...) reads the guarantee at `export default`; code after it must not change it.
    const later = constraintOf(it, g, states.beforeMain);
    if (typeof later === "string" || jsonKey(later.json) !== jsonKey(value.json)) {
      diagnostics.push(
        diagnosticAt(
          it.file,
          g,
          "invalid_guarantee",
          "the guarantee changes after program(...) reads it: guarantees must be constant data",
        ),
      );
      continue;
    }
    const parsed = EffectConstraint.safeParse(value.json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue === undefined || issue.path.length === 0 ? "" : ` at ${issue.path.join(".")}`;
      diagnostics.push(
        diagnosticAt(it.file, g, "invalid_guarantee", `not a valid guarantee${where}: ${issue?.message ?? "invalid"}`),
      );
      continue;
    }
    const unknownName = namesNothing(parsed.data, set);
    if (unknownName !== undefined) {
      diagnostics.push(diagnosticAt(it.file, g, "invalid_guarantee", unknownName));
      continue;
    }
    if (Object.values(parsed.data.args ?? {}).some(mentionsSources)) {
      diagnostics.push(
        diagnosticAt(
          it.file,
          g,
          "invalid_guarantee",
          "a guarantee cannot say where a value came from (untrusted, from): a run cannot check that; the policy decides on provenance",
        ),
      );
      continue;
    }
    const check = holdsEffect(parsed.data, effects, opts);
    const result: GuaranteeResult = {
      source: parsed.data,
      text: g.getText(it.file),
      status: STATUS[check.verdict],
      why: check.why,
    };
    if (check.site !== undefined) result.site = check.site;
    results.push(result);
  }
  return { results, diagnostics };
}

/**
 * Why a guarantee names something the manifests do not have (an op, or an input of the ops it
 * selects), if it does: such a guarantee would hold vacuously, "proven" about nothing.
 */
function namesNothing(c: EffectConstraint, set: ManifestSet): string | undefined {
  const ops = [...set.actions.keys()].filter((op) => matchOp(c.op, op));
  if (ops.length === 0)
    return `the guarantee names ${JSON.stringify(c.op)}, which matches no op of the manifests (ops: ${[...set.actions.keys()].sort().join(", ")})`;
  const inputs = new Set(
    ops.flatMap((op) => [
      ...set.actions.get(op)!.manifest.inputs.map((input) => input.name),
      ...Object.keys(set.actions.get(op)!.manifest.resolve?.inputs ?? {}),
    ]),
  );
  const named = [...Object.keys(c.args ?? {}), ...(c.distinct === undefined ? [] : [c.distinct])];
  const missing = named.find((name) => !inputs.has(name));
  if (missing === undefined) return undefined;
  return `the guarantee names the input ${JSON.stringify(missing)}, which no op matching ${JSON.stringify(c.op)} has (inputs: ${[...inputs].sort().join(", ")})`;
}

/** The guarantee's JSON value, or why it is not static. */
function constraintOf(it: Interpreter, g: ts.Expression, state: State): { json: Json } | string {
  if (ts.isCallExpression(g)) {
    const api = resolveApiCall(it.checker, it.set, g);
    if (api?.kind !== "contract")
      return "a guarantee call must be a contract helper from trusted/<connector>/contracts";
    const helper = contractsByConnector[api.connector]?.find((h) => h.name === api.name);
    if (helper === undefined) return `${api.name} is not a contract helper of ${api.connector}`;
    const args: Json[] = [];
    for (const arg of g.arguments) {
      const v = single(evaluateExpression(it, arg, clone(state)));
      if (v === undefined)
        return `the arguments of ${api.name} must be constants the analysis can compute: ${arg.getText(it.file)} is not`;
      args.push(v);
    }
    try {
      return { json: (helper.build as unknown as (...a: Json[]) => Json)(...args) };
    } catch (err) {
      return `${api.name}(...) failed: ${(err as Error).message}`;
    }
  }
  const v = single(evaluateExpression(it, g, clone(state)));
  return v === undefined
    ? 'a guarantee must be a constant constraint object such as { op: "email.*", count: { max: 1 } }'
    : { json: v };
}

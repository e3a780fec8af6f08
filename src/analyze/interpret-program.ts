import { ts } from "./compile/typescript.js";
import type { AbstractValue, CountRange, Provenance } from "../model/index.js";
import type { Effect, ResultPart } from "../model/index.js";
import { agentStepEffects, outsideAllowlists } from "./interpret/agent-steps.js";
import { invoke } from "./interpret/calls.js";
import { diagnosticAt } from "./diagnostic.js";
import type { Interpreter } from "./interpret/interpreter.js";
import { provenanceOf, unknown } from "./domain/lattice.js";
import type { ProgramShape } from "./compile/program-shape.js";
import { resultParts } from "./facts/result-parts.js";
import { declare } from "./interpret/statements.js";
import { clone, countOf, emptyState, type State } from "./interpret/state.js";
import { resolveApiCall } from "./compile/trusted-callee.js";

/**
 * Interpret the module as it runs: every top-level declaration in order (those after `export
 * default` too: the whole module is evaluated first), then `main` once. Returns one Effect per
 * trusted call site, in source order, and the states at `export default` and before main (for
 * guarantees).
 * Counts: the minimum is over runs that finish; the maximum also covers runs that stop with an
 * exception (the whole-run accumulator), so it bounds every run.
 */
export function interpretProgram(
  it: Interpreter,
  shape: ProgramShape,
): { effects: Effect[]; atExport: State; beforeMain: State; result: ResultPart[] } {
  const state = emptyState();
  let atExport = state;
  let beforeMain = state;
  let returned: AbstractValue = unknown("undefined");
  const { acc } = it.counts.accumulate(() => {
    for (const statement of it.file.statements) {
      if (ts.isVariableStatement(statement)) declare(it, statement.declarationList, state);
      else if (ts.isExportAssignment(statement)) atExport = clone(state);
    }
    beforeMain = clone(state);
    returned = it.promises.awaited(invoke(it, shape.main, [], state, false));
  });
  // Read after every call site is final: the influence of the whole run, tasks left running included.
  const effects = callSites(it).flatMap((call) => effectsAt(it, call, state, acc));
  return { effects, atExport, beforeMain, result: resultParts(returned, it.influence.soFar()) };
}

function callSites(it: Interpreter): ts.CallExpression[] {
  const out: ts.CallExpression[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const api = resolveApiCall(it.checker, it.set, node);
      if (api?.kind === "action") out.push(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(it.file);
  return out;
}

/** A call site's effect; an agent action's call site has one per step, its refusals reported at the call. */
function effectsAt(it: Interpreter, call: ts.CallExpression, end: State, acc: State): Effect[] {
  const effect = effectAt(it, call, end, acc);
  const agent = it.set.agent;
  const action = agent?.actions.get(effect.op);
  if (agent === undefined || action === undefined) return [effect];
  // Each step's arguments are built from the call's: their sources follow, and so does what the call depended on.
  const steps = agentStepEffects(action, effect.args, effect.site, effect.count).map((step) => ({
    ...step,
    sources: sourcesOf(step.args),
    ...(effect.influencedBy === undefined ? {} : { influencedBy: effect.influencedBy }),
  }));
  for (const step of steps) {
    const outside = outsideAllowlists(step, it.set, agent.allowlists);
    if (outside !== undefined) it.diagnostics.push(diagnosticAt(it.file, call, "agent_action_refused", outside));
  }
  return steps;
}

function effectAt(it: Interpreter, call: ts.CallExpression, end: State, acc: State): Effect {
  const api = resolveApiCall(it.checker, it.set, call);
  if (api?.kind !== "action") throw new Error("not a trusted call site");
  const { action } = api;
  const { line, character } = it.file.getLineAndCharacterOfPosition(call.getStart(it.file));
  const site = { line: line + 1, column: character + 1 };
  const seen = it.sites.get(call);
  if (seen === undefined) {
    // Never reached by the interpretation: claim nothing about it, its sources included.
    const nothing = unknown("a call the analysis did not reach", true);
    const args = Object.fromEntries(action.manifest.inputs.map((input) => [input.name, nothing]));
    return {
      op: action.op,
      connector: action.connector,
      action: action.name,
      site,
      args,
      count: { min: 0, max: null },
      sources: sourcesOf(args),
      influencedBy: provenanceOf(nothing),
    };
  }
  const atEnd = countOf(end, call);
  const reached = acc.counts.get(call);
  const most = reached === undefined ? 0 : reached.max;
  const max = atEnd.max === null || most === null ? null : Math.max(atEnd.max, most);
  const count: CountRange = { min: atEnd.min, max };
  return {
    op: action.op,
    connector: action.connector,
    action: action.name,
    site,
    args: seen.args,
    count,
    sources: sourcesOf(seen.args),
    influencedBy: it.sites.influenceOf(seen),
  };
}

function sourcesOf(args: Record<string, AbstractValue>): Record<string, Provenance[]> {
  return Object.fromEntries(Object.entries(args).map(([name, value]) => [name, provenanceOf(value)]));
}

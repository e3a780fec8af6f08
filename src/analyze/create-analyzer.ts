import type { ts } from "./compile/typescript.js";
import type { Diagnostic, Facts, Provenance } from "../model/index.js";
import { mergeProvenance } from "../constraint/index.js";
import type { ManifestSet } from "../manifest/index.js";
import { programBytes } from "../model/index.js";
import { AnalysisBudget, BudgetExceeded, type BudgetOptions } from "./budget.js";
import { diagnosticAt } from "./diagnostic.js";
import { checkConstructs, COMPUTED_KEY } from "./check/constructs.js";
import { checkImports } from "./check/imports.js";
import { checkTypeTrust } from "./check/type-trust.js";
import { compile, createCompiler, LIB_FILE, type Compiler } from "./compile/compile.js";
import { checkGuarantees } from "./facts/guarantees.js";
import { Interpreter } from "./interpret/interpreter.js";
import { programShape } from "./compile/program-shape.js";
import { interpretProgram } from "./interpret-program.js";
import { scanProgram } from "./compile/scan.js";
import { summarize } from "./facts/summarize.js";
import { resolveApiCall } from "./compile/trusted-callee.js";
import { MAX_HEAP_ROUNDS } from "./limits.js";

export interface AnalyzeOptions {
  entry?: string; // the program's file name, recorded in the facts; default "program.ts"
  budget?: BudgetOptions; // this analysis's limits, over the analyzer's
}

export interface AnalyzerOptions {
  budget?: BudgetOptions; // the limits of every analysis (defaults: DEFAULT_BUDGET)
}

export interface Analyzer {
  /** The facts of one program: its exact bytes (or text, standing for its UTF-8 encoding). */
  analyze(program: Uint8Array | string, options?: AnalyzeOptions): Facts;
  dispose(): void;
}

/**
 * A long-lived analyzer for one manifest set. Stages: type check, imports and the construct
 * allowlist, then (only for a well-formed program) abstract interpretation, guarantees and the
 * summary. Any error diagnostic refuses the program; so does a refuted guarantee.
 */
export function createAnalyzer(set: ManifestSet, analyzerOptions: AnalyzerOptions = {}): Analyzer {
  let compiler: ReturnType<typeof createCompiler> | undefined = createCompiler(set);
  new AnalysisBudget(analyzerOptions.budget); // bad limits fail here, not at the first program
  return {
    analyze(program, options = {}) {
      if (compiler === undefined) throw new Error("analyzer disposed");
      const budget = new AnalysisBudget({ ...analyzerOptions.budget, ...options.budget });
      const { bytes, sha256, text } = programBytes(program);
      const facts: Facts = {
        program: { sha256, entry: options.entry ?? "program.ts" },
        ok: false,
        diagnostics: [],
        effects: [],
        guarantees: [],
        summary: [],
        rationale: "",
      };
      if (set.agent !== undefined) facts.agentManifests = { sha256: set.agent.sha256 };
      if (bytes.length > budget.limits.bytes) {
        facts.diagnostics.push(
          atStart(
            "analysis_budget_exceeded",
            `the program is ${bytes.length} bytes, more than the analysis's limit of ${budget.limits.bytes} bytes`,
          ),
        );
      } else if (text === undefined) {
        facts.diagnostics.push(
          atStart("invalid_program", "the program is not valid UTF-8: a program must be UTF-8 text"),
        );
      } else {
        try {
          analyzeText(compiler, set, budget, text, facts);
        } catch (err) {
          compiler.discard(); // the checker may have been stopped half-way
          if (!(err instanceof BudgetExceeded)) throw err;
          facts.diagnostics.push(budgetDiagnostic(err, budget)); // raised before any effect was recorded
        }
      }
      return sorted(facts);
    },
    dispose() {
      compiler = undefined;
    },
  };
}

/** The stages over well-formed text; fills `facts` in place, so that a budget refusal keeps the rationale. */
function analyzeText(compiler: Compiler, set: ManifestSet, budget: AnalysisBudget, text: string, facts: Facts): void {
  const compiled = compile(compiler, text, budget);
  if ("refused" in compiled) {
    facts.diagnostics.push(...compiled.refused);
    return;
  }
  const { file, checker, diagnostics: typeErrors } = compiled;
  const { shape, diagnostics: shapeProblems } = programShape(checker, file);
  const deferredKeys = new Set<ts.ElementAccessExpression>();
  if (shape !== undefined) facts.rationale = shape.rationale;
  facts.diagnostics.push(
    ...typeErrors,
    ...checkImports(file, compiler.modules),
    ...shapeProblems,
    ...checkConstructs(checker, file, shape, deferredKeys),
    ...checkTypeTrust(checker, file, LIB_FILE),
  );
  if (facts.diagnostics.length > 0 || shape === undefined) return;
  budget.checkTime();
  const isTrusted = (call: ts.CallExpression): boolean => {
    const api = resolveApiCall(checker, set, call);
    return api?.kind === "action";
  };
  const scan = scanProgram(checker, file, isTrusted);
  // Values stored into objects the analysis does not follow may be read through another name,
  // earlier in the analysis than at run time: it runs again, assuming what the last run stored,
  // until a run stored nothing it had not assumed.
  let assumed: Provenance[] = [];
  let it: Interpreter;
  let interpreted: ReturnType<typeof interpretProgram>;
  for (let round = 0; ; round++) {
    const heapAssumed =
      round < MAX_HEAP_ROUNDS
        ? assumed
        : [...assumed, { source: "an object changed through another name", untrusted: true }];
    it = new Interpreter(checker, set, file, scan, LIB_FILE, budget, heapAssumed, deferredKeys);
    try {
      interpreted = interpretProgram(it, shape);
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      compiler.discard(); // the stack may have run out inside the checker
      facts.diagnostics.push(tooLarge(err)); // the stack or an allocation ran out: refuse, never guess
      return;
    }
    if (it.heap.settled() || round >= MAX_HEAP_ROUNDS) break;
    assumed = mergeProvenance([assumed, it.heap.seen()]);
  }
  for (const node of deferredKeys) {
    if (!it.numericKeys.surelyNumeric(node))
      it.diagnostics.push(
        diagnosticAt(
          file,
          node.argumentExpression,
          "refused_construct",
          `computed member access is refused: its key is not surely a number, so it ${COMPUTED_KEY}`,
          "computed member access",
        ),
      );
  }
  const { effects, atExport, beforeMain, result } = interpreted;
  const { results, diagnostics } = checkGuarantees(it, shape.guarantees, { atExport, beforeMain }, effects, set);
  facts.diagnostics.push(...it.diagnostics, ...diagnostics);
  if (facts.diagnostics.length > 0) return;
  facts.effects = effects;
  facts.guarantees = results;
  facts.summary = summarize(effects, results);
  facts.result = { parts: result };
  facts.ok = results.every((g) => g.status !== "refuted");
}

function budgetDiagnostic(err: BudgetExceeded, budget: AnalysisBudget): Diagnostic {
  const limit = err.limit === "ms" ? `${budget.limits.ms} ms` : `${budget.limits.steps} steps`;
  const message = `the analysis ran past its budget of ${limit}${err.at === undefined ? "" : " here"}: simplify the program (fewer nested loops or calls, smaller types)`;
  if (err.at === undefined) return atStart("analysis_budget_exceeded", message);
  return diagnosticAt(err.at.getSourceFile(), err.at, "analysis_budget_exceeded", message);
}

function atStart(code: string, message: string): Diagnostic {
  return { severity: "error", code, message, line: 1, column: 1 };
}

function tooLarge(err: RangeError): Diagnostic {
  return {
    severity: "error",
    code: "unsupported",
    message: `the program is too large for the analysis (${err.message}): split it up or make its loops smaller`,
    line: 1,
    column: 1,
    construct: "analysis limits",
  };
}

function sorted(facts: Facts): Facts {
  facts.diagnostics.sort((a, b) => a.line - b.line || a.column - b.column);
  return facts;
}

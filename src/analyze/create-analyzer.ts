import { createHash } from "node:crypto";
import type { ts } from "./typescript.js";
import type { Diagnostic, Facts } from "../model/facts.js";
import type { ManifestSet } from "../manifest/manifest-set.js";
import { checkConstructs } from "./check-constructs.js";
import { checkImports } from "./check-imports.js";
import { compile, createCompiler, LIB_FILE } from "./compile.js";
import { checkGuarantees } from "./guarantees.js";
import { Interpreter } from "./interpreter.js";
import { programShape } from "./program-shape.js";
import { runProgram } from "./run-program.js";
import { scanProgram } from "./scan.js";
import { summarize } from "./summarize.js";
import { resolveApiCall } from "./trusted-callee.js";

export interface AnalyzeOptions {
  entry?: string; // the program's file name, recorded in the facts; default "program.ts"
}

export interface Analyzer {
  analyze(source: string, options?: AnalyzeOptions): Facts;
  dispose(): void;
}

/**
 * A long-lived analyzer for one manifest set. Stages: type check, imports and the construct
 * allowlist, then (only for a well-formed program) abstract interpretation, guarantees and the
 * summary. Any error diagnostic refuses the program; so does a refuted guarantee.
 */
export function createAnalyzer(set: ManifestSet): Analyzer {
  let compiler: ReturnType<typeof createCompiler> | undefined = createCompiler(set);
  return {
    analyze(source, options = {}) {
      if (compiler === undefined) throw new Error("analyzer disposed");
      const sha256 = createHash("sha256").update(source, "utf8").digest("hex");
      const facts: Facts = { program: { sha256, entry: options.entry ?? "program.ts" }, ok: false, diagnostics: [], effects: [], guarantees: [], summary: [], rationale: "" };
      const compiled = compile(compiler, source);
      if ("refused" in compiled) {
        facts.diagnostics.push(compiled.refused);
        return facts;
      }
      const { file, checker, diagnostics: typeErrors } = compiled;
      const { shape, diagnostics: shapeProblems } = programShape(checker, file);
      if (shape !== undefined) facts.rationale = shape.rationale;
      facts.diagnostics.push(...typeErrors, ...checkImports(file, compiler.modules), ...shapeProblems, ...checkConstructs(checker, file, shape));
      if (facts.diagnostics.length > 0 || shape === undefined) return sorted(facts);
      const isTrusted = (call: ts.CallExpression): boolean => {
        const api = resolveApiCall(checker, set, call);
        return api !== undefined && api !== "unresolved" && api.kind === "action";
      };
      const it = new Interpreter(checker, set, file, scanProgram(checker, file, isTrusted), LIB_FILE);
      let interpreted;
      try {
        interpreted = runProgram(it, shape);
      } catch (err) {
        if (!(err instanceof RangeError)) throw err;
        facts.diagnostics.push(tooLarge(err)); // the stack or an allocation ran out: refuse, never guess
        return facts;
      }
      const { effects, atExport, beforeMain } = interpreted;
      const { results, diagnostics } = checkGuarantees(it, shape.guarantees, { atExport, beforeMain }, effects, set);
      facts.diagnostics.push(...it.diagnostics, ...diagnostics);
      if (facts.diagnostics.length > 0) return sorted(facts);
      facts.effects = effects;
      facts.guarantees = results;
      facts.summary = summarize(effects, results);
      facts.ok = results.every((g) => g.status !== "refuted");
      return facts;
    },
    dispose() {
      compiler = undefined;
    },
  };
}

function tooLarge(err: RangeError): Diagnostic {
  return { severity: "error", code: "unsupported", message: `the program is too large for the analysis (${err.message}): split it up or make its loops smaller`, line: 1, column: 1, construct: "analysis limits" };
}

function sorted(facts: Facts): Facts {
  facts.diagnostics.sort((a, b) => a.line - b.line || a.column - b.column);
  return facts;
}

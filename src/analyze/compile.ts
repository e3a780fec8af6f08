import { ts } from "./typescript.js";
import type { Diagnostic } from "../model/index.js";
import { generateApi } from "../manifest/index.js";
import type { ManifestSet } from "../manifest/index.js";
import { BudgetExceeded, type Budget } from "./budget.js";
import { checkFunctionSize } from "./check-size.js";
import { checkTypeLevel } from "./check-type-level.js";
import { checkNesting, parserTooDeep } from "./nesting.js";
import { sandboxLib } from "./sandbox-lib.js";

export const LIB_FILE = "/countersign/lib.sandbox.d.ts";
const API_FILE = "/countersign/api.d.ts";
const PROGRAM_FILE = "/program.ts";

const OPTIONS: ts.CompilerOptions = {
  noLib: true,
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: false,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  types: [],
  noEmit: true,
  isolatedModules: true,
};

/**
 * One long-lived in-memory TypeScript program: our own lib (no DOM, no Node) and the trusted API
 * generated from the manifests are parsed once; each program replaces the previous one, and the
 * compiler reuses the unchanged declaration files from the last program.
 */
export interface Compiler {
  modules: ReadonlySet<string>; // the importable module names
  build(source: string): ts.Program;
}

export function createCompiler(set: ManifestSet): Compiler {
  const api = generateApi(set);
  const texts = new Map([
    [LIB_FILE, sandboxLib],
    [API_FILE, api.all],
  ]);
  const parsed = new Map<string, ts.SourceFile>();
  let source = "";
  let last: ts.Program | undefined;
  const host: ts.CompilerHost = {
    getSourceFile(name, options) {
      if (name === PROGRAM_FILE) return ts.createSourceFile(name, source, options, true);
      const text = texts.get(name);
      if (text === undefined) return undefined;
      let file = parsed.get(name);
      if (file === undefined) parsed.set(name, (file = ts.createSourceFile(name, text, options, true)));
      return file;
    },
    fileExists: (name) => name === PROGRAM_FILE || texts.has(name),
    readFile: (name) => (name === PROGRAM_FILE ? source : texts.get(name)),
    directoryExists: (name) => name === "/" || name === "/countersign",
    getDirectories: () => [],
    getDefaultLibFileName: () => LIB_FILE,
    writeFile: () => {},
    getCurrentDirectory: () => "/",
    getCanonicalFileName: (name) => name,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => "\n",
  };
  const compiler: Compiler = {
    modules: new Set(Object.keys(api.modules)),
    build(text) {
      source = text;
      last = ts.createProgram({ rootNames: [LIB_FILE, API_FILE, PROGRAM_FILE], options: OPTIONS, host, ...(last === undefined ? {} : { oldProgram: last }) });
      return last;
    },
  };
  // Parse and bind the lib and the API now, once, and warm the compiler's code up: the analysis
  // budget is for each program's own work, not for the analyzer's setup.
  const warm = compiler.build("export {};\n");
  warm.getSemanticDiagnostics(warm.getSourceFile(PROGRAM_FILE));
  return compiler;
}

export interface Compiled {
  file: ts.SourceFile;
  checker: ts.TypeChecker;
  diagnostics: Diagnostic[]; // type errors, in the compiler's words
}

/**
 * The program type-checked within the budget's time (BudgetExceeded past it), or refused before
 * the checker runs when it nests too deeply, holds a function too large to check at once, or
 * computes types.
 */
export function compile(compiler: Compiler, source: string, budget: Budget): Compiled | { refused: Diagnostic[] } {
  let program: ts.Program;
  try {
    program = compiler.build(source);
  } catch (err) {
    if (err instanceof RangeError) return { refused: [parserTooDeep()] }; // the parser's own recursion overflowed
    throw err;
  }
  const file = program.getSourceFile(PROGRAM_FILE)!;
  const tooLarge = checkNesting(file) ?? checkFunctionSize(file);
  if (tooLarge !== undefined) return { refused: [tooLarge] };
  const computing = checkTypeLevel(file);
  if (computing.length > 0) return { refused: computing };
  budget.checkTime();
  let found: ts.Diagnostic[];
  try {
    found = budget.hardDeadline(() => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file, budget.cancellationToken())]);
  } catch (err) {
    if (err instanceof ts.OperationCanceledException) throw new BudgetExceeded("ms", undefined);
    throw err;
  }
  budget.checkTime();
  const diagnostics = found.filter((d) => d.category === ts.DiagnosticCategory.Error).map((d) => typeDiagnostic(d, file));
  return { file, checker: program.getTypeChecker(), diagnostics };
}

function typeDiagnostic(d: ts.Diagnostic, file: ts.SourceFile): Diagnostic {
  const at = d.file === file && d.start !== undefined ? file.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
  return {
    severity: "error",
    code: "type_error",
    message: `${ts.flattenDiagnosticMessageText(d.messageText, "\n")} (TS${d.code})`,
    line: at.line + 1,
    column: at.character + 1,
  };
}

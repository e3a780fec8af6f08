import { ts, tsInternals } from "./typescript.js";
import type { Diagnostic } from "../../model/index.js";
import { generateApi } from "../../manifest/index.js";
import type { ManifestSet } from "../../manifest/index.js";
import { BudgetExceeded, type AnalysisBudget } from "../budget.js";
import { checkFunctionSize } from "../check/size.js";
import { checkTypeLevel } from "../check/type-level.js";
import { checkNesting, parserTooDeep } from "../check/nesting.js";
import { sandboxLib } from "./sandbox-lib.js";
import { SHARED_CHECKER_LIMITS } from "../limits.js";

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
 * The TypeScript compiler over our own lib (no DOM, no Node) and the trusted API generated from
 * the manifests, both parsed and bound once. Most of a fresh checker's work for a small program
 * is resolving the lib's and the API's types (Array<Guarantee>, the contract helpers' types...),
 * so a program that cannot change the global scope (see `sharesChecker`) is checked by one long-
 * lived checker that keeps them: a program's own declarations live in its module, and each program
 * gets a file name of its own, so that no diagnostic or cache of one program is taken for another's.
 * Any other program, and any program with a diagnostic (see `typeCheck`), gets a program and a
 * checker of its own, exactly as a compiler run would.
 */
export interface Compiler {
  modules: ReadonlySet<string>; // the importable module names
  /** `source` parsed as a new program file (RangeError when the parser's own recursion overflows). */
  parse(source: string): ts.SourceFile;
  /** Type-check a file from `parse`; the file the checker saw may be a re-parse of it (a program of its own). */
  typeCheck(
    file: ts.SourceFile,
    token: ts.CancellationToken,
  ): { file: ts.SourceFile; checker: ts.TypeChecker; diagnostics: ts.Diagnostic[] };
  /** Drop the shared checker: after an interrupted or failed analysis it may hold half-done work. */
  discard(): void;
}

export function createCompiler(set: ManifestSet): Compiler {
  const api = generateApi(set);
  const texts = new Map([
    [LIB_FILE, sandboxLib],
    [API_FILE, api.all],
  ]);
  const modules: ReadonlySet<string> = new Set(Object.keys(api.modules));
  const parsed = new Map<string, ts.SourceFile>();
  let source = "";
  let fileOptions: Parameters<typeof ts.createSourceFile>[2] = OPTIONS.target!;
  const host: ts.CompilerHost = {
    getSourceFile(name, options) {
      if (name === PROGRAM_FILE) {
        fileOptions = options; // what the compiler parses a program file with, for `parse`
        return ts.createSourceFile(name, source, options, true);
      }
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
  let last: ts.Program | undefined;
  /**
   * A program with the lib, the API and `text` as PROGRAM_FILE; the unchanged declaration files are reused from the
   * last one.
   */
  const build = (text: string): ts.Program => {
    source = text;
    last = ts.createProgram({
      rootNames: [LIB_FILE, API_FILE, PROGRAM_FILE],
      options: OPTIONS,
      host,
      ...(last === undefined ? {} : { oldProgram: last }),
    });
    return last;
  };
  let shared: { program: ts.Program; programs: number; chars: number } | undefined = {
    program: build("export {};\n"),
    programs: 0,
    chars: 0,
  }; // sets fileOptions
  let files = 0;
  const checkShared = (
    file: ts.SourceFile,
    imports: ts.StringLiteral[],
    token: ts.CancellationToken,
  ): ReturnType<Compiler["typeCheck"]> => {
    if (
      shared === undefined ||
      shared.programs >= SHARED_CHECKER_LIMITS.programs ||
      shared.chars >= SHARED_CHECKER_LIMITS.chars
    )
      shared = { program: build("export {};\n"), programs: 0, chars: 0 };
    shared.programs++;
    shared.chars += file.text.length;
    const { program } = shared;
    // What the program would have collected and bound for the file as one of its own.
    Object.assign(file, { imports, moduleAugmentations: [], ambientModuleNames: [] });
    tsInternals.bindSourceFile(file, OPTIONS);
    const diagnostics = diagnosticsOf(program, file, token);
    // A global diagnostic (a global type the lib lacks, e.g. for import attributes) is reported
    // once per checker, to the first program that needs it.
    if (program.getGlobalDiagnostics().length > 0) shared = undefined;
    return { file, checker: program.getTypeChecker(), diagnostics };
  };
  const compiler: Compiler = {
    modules,
    parse(text) {
      const name = `/program-${++files}.ts`;
      const file = ts.createSourceFile(name, text, fileOptions, true);
      // What the compiler's program sets on a file it includes, and its checker reads.
      Object.assign(file, { path: name, resolvedPath: name, originalFileName: name });
      return file;
    },
    typeCheck(parsedFile, token) {
      const imports = sharesChecker(parsedFile, modules);
      if (imports !== undefined) {
        const checked = checkShared(parsedFile, imports, token);
        // The compiler's messages print types, a union's members in the order the checker first
        // made them: a program with any diagnostic is checked again on its own, so that what it is
        // told never depends on (or tells of) the programs checked before it.
        if (checked.diagnostics.length === 0) return checked;
      }
      const program = build(parsedFile.text);
      const file = program.getSourceFile(PROGRAM_FILE)!;
      return { file, checker: program.getTypeChecker(), diagnostics: diagnosticsOf(program, file, token) };
    },
    discard() {
      shared = undefined;
    },
  };
  // Parse and bind the lib and the API now, once, resolve their types in the shared checker and
  // warm the compiler's code up: the analysis budget is for each program's own work, not for the
  // analyzer's setup.
  compiler.typeCheck(compiler.parse(WARM_UP), {
    isCancellationRequested: () => false,
    throwIfCancellationRequested: () => {},
  });
  return compiler;
}

function diagnosticsOf(program: ts.Program, file: ts.SourceFile, token: ts.CancellationToken): ts.Diagnostic[] {
  return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file, token)];
}

// A program that touches what most programs do: the API's program(...) and its contract helpers, arrays, loops,
// strings.
const WARM_UP = `import { program } from "countersign";
export default program({ rationale: "warm-up", guarantees: [{ op: "email.*", count: { max: 0 } }], async main() { for (const x of ["a"]) { \`\${x}\`.trim(); } } });
`;

/**
 * The module specifiers of a program that the shared checker may check (as the compiler would
 * collect them), or undefined for one that needs a program of its own: a script (its declarations
 * are global), global or module augmentations, `export as namespace`, imports other than the API's
 * modules, dynamic imports and import types, and triple-slash directives. Each of these makes a
 * compiler run merge or look up something beyond the file, which the shared checker did once,
 * before the file existed.
 */
export function sharesChecker(file: ts.SourceFile, modules: ReadonlySet<string>): ts.StringLiteral[] | undefined {
  if (!ts.isExternalModule(file) || (file.flags & tsInternals.possiblyContainsDynamicImport) !== 0) return undefined;
  if (
    file.referencedFiles.length +
      file.typeReferenceDirectives.length +
      file.libReferenceDirectives.length +
      file.amdDependencies.length >
      0 ||
    file.moduleName !== undefined
  )
    return undefined;
  const imports: ts.StringLiteral[] = [];
  for (const statement of file.statements) {
    if (
      ts.isModuleDeclaration(statement) ||
      ts.isNamespaceExportDeclaration(statement) ||
      ts.isImportEqualsDeclaration(statement)
    )
      return undefined;
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (specifier === undefined) continue; // export { x }: no module
    if (!ts.isStringLiteral(specifier) || !modules.has(specifier.text)) return undefined;
    imports.push(specifier);
  }
  return imports;
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
export function compile(
  compiler: Compiler,
  source: string,
  budget: AnalysisBudget,
): Compiled | { refused: Diagnostic[] } {
  let parsed: ts.SourceFile;
  try {
    parsed = compiler.parse(source);
  } catch (err) {
    if (err instanceof RangeError) return { refused: [parserTooDeep()] }; // the parser's own recursion overflowed
    throw err;
  }
  const tooLarge = checkNesting(parsed) ?? checkFunctionSize(parsed);
  if (tooLarge !== undefined) return { refused: [tooLarge] };
  const computing = checkTypeLevel(parsed);
  if (computing.length > 0) return { refused: computing };
  budget.checkTime();
  let checked: ReturnType<Compiler["typeCheck"]>;
  try {
    checked = budget.hardDeadline(() => compiler.typeCheck(parsed, budget.cancellationToken()));
  } catch (err) {
    if (err instanceof ts.OperationCanceledException) throw new BudgetExceeded("ms", undefined);
    throw err;
  }
  budget.checkTime();
  const { file, checker } = checked;
  const diagnostics = checked.diagnostics
    .filter((d) => d.category === ts.DiagnosticCategory.Error)
    .map((d) => typeDiagnostic(d, file));
  return { file, checker, diagnostics };
}

function typeDiagnostic(d: ts.Diagnostic, file: ts.SourceFile): Diagnostic {
  const at =
    d.file === file && d.start !== undefined ? file.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
  return {
    severity: "error",
    code: "type_error",
    message: `${ts.flattenDiagnosticMessageText(d.messageText, "\n")} (TS${d.code})`,
    line: at.line + 1,
    column: at.character + 1,
  };
}

import { Project, ts } from "./ts-morph.js";
import type { Diagnostic } from "../model/facts.js";
import { generateApi } from "../manifest/generate-api.js";
import type { ManifestSet } from "../manifest/manifest-set.js";
import { sandboxLib } from "./sandbox-lib.js";

export const LIB_FILE = "/countersign/lib.sandbox.d.ts";
const API_FILE = "/countersign/api.d.ts";
const PROGRAM_FILE = "/program.ts";

/**
 * One long-lived in-memory TypeScript project: our own lib (no DOM, no Node) and the trusted API
 * generated from the manifests are parsed once; each program is added, checked and removed.
 */
export interface Compiler {
  project: Project;
  modules: ReadonlySet<string>; // the importable module names
}

export function createCompiler(set: ManifestSet): Compiler {
  const project = new Project({
    useInMemoryFileSystem: true,
    skipLoadingLibFiles: true,
    compilerOptions: {
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
    },
  });
  const api = generateApi(set);
  project.createSourceFile(LIB_FILE, sandboxLib);
  project.createSourceFile(API_FILE, api.all);
  return { project, modules: new Set(Object.keys(api.modules)) };
}

export interface Compiled {
  file: ts.SourceFile;
  checker: ts.TypeChecker;
  diagnostics: Diagnostic[]; // type errors, in the compiler's words
  remove(): void;
}

export function compile(compiler: Compiler, source: string): Compiled {
  const added = compiler.project.createSourceFile(PROGRAM_FILE, source, { overwrite: true });
  const program = compiler.project.getProgram().compilerObject;
  const file = program.getSourceFile(PROGRAM_FILE)!;
  const found = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
  const diagnostics = found.filter((d) => d.category === ts.DiagnosticCategory.Error).map((d) => typeDiagnostic(d, file));
  return {
    file,
    checker: program.getTypeChecker(),
    diagnostics,
    remove: () => compiler.project.removeSourceFile(added),
  };
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

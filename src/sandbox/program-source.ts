import { createHash } from "node:crypto";
import { ts } from "../analyze/index.js";
import { CountersignError } from "../model/index.js";

// Strict, BOM kept: the text must be exactly the bytes whose hash the receipt binds.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// What the analyzer type-checks against (ES2022, ES modules): transpiling only erases types.
const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  isolatedModules: true,
  sourceMap: false,
  removeComments: false,
};

/**
 * A program ready to run: its JavaScript, and the modules it imports (only those are loaded: an import() finds no
 * other).
 */
export interface ProgramSource {
  code: string;
  imports: ReadonlySet<string>;
}

// Transpiled programs by sha256: a program run again (a retry, a benchmark) is not transpiled again.
const transpiled = new Map<string, ProgramSource>();
const CACHED = 32;

/**
 * The JavaScript to run for the submitted program: its bytes are checked against the hash the
 * receipt carries before anything else, then decoded and transpiled with the compiler the
 * analyzer uses. Other bytes than the approved ones are `hash_mismatch` and nothing runs.
 */
export function programSource(bytes: Uint8Array, sha256: string, entry: string): ProgramSource {
  const actual = createHash("sha256").update(bytes).digest("hex");
  if (actual !== sha256.toLowerCase()) {
    throw new CountersignError(
      "hash_mismatch",
      "sandbox",
      `${entry}: the program's bytes do not match the approved sha256`,
      {
        details: { expected: sha256, actual },
      },
    );
  }
  const cached = transpiled.get(actual);
  if (cached !== undefined) return cached;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new CountersignError("analysis_rejected", "sandbox", `${entry} is not valid UTF-8`);
  }
  // Parsed as the analyzer parses it (a .ts file, never TSX), whatever the entry is called.
  const imports = new Set<string>();
  const out = ts.transpileModule(text, {
    compilerOptions: OPTIONS,
    fileName: "program.ts",
    reportDiagnostics: true,
    transformers: { before: [collectImports(imports)] },
  });
  const errors = (out.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length > 0) {
    throw new CountersignError(
      "analysis_rejected",
      "sandbox",
      `${entry} does not compile: ${ts.flattenDiagnosticMessageText(errors[0]!.messageText, "\n")}`,
      {
        details: { errors: errors.length },
      },
    );
  }
  const program = { code: out.outputText, imports };
  if (transpiled.size >= CACHED) transpiled.delete(transpiled.keys().next().value!);
  transpiled.set(actual, program);
  return program;
}

/** Adds the modules a program imports or re-exports from to `into`, reading the tree the transpiler parsed anyway. */
function collectImports(into: Set<string>): ts.TransformerFactory<ts.SourceFile> {
  return () => (file) => {
    for (const statement of file.statements) {
      const specifier =
        ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier : undefined;
      if (specifier !== undefined && ts.isStringLiteral(specifier)) into.add(specifier.text);
    }
    return file;
  };
}

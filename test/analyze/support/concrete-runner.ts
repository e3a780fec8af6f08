import { createContext, Script } from "node:vm";
import { ts } from "ts-morph";
import { actionFunctionName } from "../../../src/manifest/function-name.js";
import type { ManifestSet } from "../../../src/manifest/manifest-set.js";
import type { Json } from "../../../src/model/json.js";
import type { Site } from "../../../src/model/facts.js";
import { contractsByConnector } from "../../../trusted/contracts/index.js";

/** One trusted call as a run made it: the op, where in the source, and the arguments as sent. */
export interface ObservedCall {
  op: string;
  site: Site;
  args: Record<string, Json>;
}

export interface Trace {
  calls: ObservedCall[];
  /** returned: main resolved; threw: main rejected; pending: main never settled; timeout: stopped. */
  outcome: "returned" | "threw" | "pending" | "timeout";
  error?: string;
  /** The guarantees as the real contract helpers built them when the module was evaluated. */
  guarantees: Json[];
}

export interface RunOptions {
  /** The text a read returns (a draft's body, a file, an HTTP response): the n-th read of the run. */
  readText?: (op: string, n: number) => string;
  timeoutMs?: number;
}

/** A program ready to run many times: transpiled once, with every trusted call site rewritten. */
export interface Compiled {
  run(options?: RunOptions): Trace;
}

const HOST = "__countersignHost";
const QUIET = "__countersignQuiet";
const MAX_CALLS = 1000;

/**
 * A test-only concrete interpreter for agent programs: TypeScript's transpiler strips the types,
 * every direct call of an imported trusted function becomes a call of a recorder that knows its
 * source site, and the module runs in a fresh node:vm context (its own built-ins, no Node globals)
 * whose microtasks drain before `run` returns. Trusted functions only record and return plausible
 * data; contract helpers are the real ones. Programs are the generator's or the test's own, so
 * this is no sandbox: it only has to run them faithfully.
 */
export function compileProgram(source: string, set: ManifestSet): Compiled {
  const file = ts.createSourceFile("program.ts", source, ts.ScriptTarget.ES2022, true);
  const trusted = trustedImports(file, set);
  const transformer: ts.TransformerFactory<ts.SourceFile> = (context) => (root) => {
    const f = context.factory;
    const visit = (node: ts.Node, parent?: ts.Node): ts.Node => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && trusted.has(node.expression.text)) {
        const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
        const args = node.arguments.map((a) => ts.visitNode(a, (n) => visit(n, node)) as ts.Expression);
        const recorder = f.createPropertyAccessExpression(f.createIdentifier(HOST), "call");
        return f.createCallExpression(recorder, undefined, [f.createStringLiteral(trusted.get(node.expression.text)!), f.createNumericLiteral(line + 1), f.createNumericLiteral(character + 1), ...args]);
      }
      const out = ts.visitEachChild(node, (child) => visit(child, node), context);
      // A promise the program drops may reject with nobody listening; mark it handled (a no-op
      // reaction changes no other job's order) so that it does not surface as the test's own error.
      const chained = parent !== undefined && (ts.isPropertyAccessExpression(parent) || ts.isElementAccessExpression(parent) || (ts.isCallExpression(parent) && parent.expression === node));
      return ts.isCallExpression(node) && !chained ? f.createCallExpression(f.createIdentifier(QUIET), undefined, [out as ts.Expression]) : out;
    };
    return ts.visitNode(root, (n) => visit(n)) as ts.SourceFile;
  };
  // The original tree's positions are what sites are measured against, so transform that tree.
  const js = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, removeComments: true },
    transformers: { before: [transformer] },
  }).outputText;
  const script = new Script(driver(js), { filename: "program.js" });
  return { run: (options = {}) => runOnce(script, set, options) };
}

/** Local name → op for every named import from `trusted/<connector>`. */
function trustedImports(file: ts.SourceFile, set: ManifestSet): Map<string, string> {
  const out = new Map<string, string>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const connector = /^trusted\/([a-z][a-z0-9_]*)$/.exec(statement.moduleSpecifier.text)?.[1];
    const bindings = statement.importClause?.namedBindings;
    if (connector === undefined || bindings === undefined || !ts.isNamedImports(bindings)) continue;
    for (const element of bindings.elements) {
      const exported = (element.propertyName ?? element.name).text;
      const action = [...set.actions.values()].find((a) => a.connector === connector && actionFunctionName(a.name) === exported);
      if (action !== undefined) out.set(element.name.text, action.op);
    }
  }
  return out;
}

// Runs inside the context: evaluate the CommonJS module, then main; report how main settled.
function driver(js: string): string {
  return `(() => {
  const host = ${HOST};
  const module = { exports: {} };
  const quiet = (value) => {
    if (value !== null && typeof value === "object" && typeof value.then === "function") value.then(undefined, () => {});
    return value;
  };
  (function (require, exports, module, ${QUIET}) {
${js}
  })(host.require, module.exports, module, quiet);
  const spec = host.spec();
  if (spec === undefined) throw new Error("the module did not call program(...)");
  host.guarantees(JSON.stringify(spec.guarantees ?? []));
  Promise.resolve()
    .then(() => spec.main())
    .then(() => host.settle("returned", ""), (e) => host.settle("threw", String(e && e.message !== undefined ? e.message : e)));
})();`;
}

function runOnce(script: Script, set: ManifestSet, options: RunOptions): Trace {
  const trace: Trace = { calls: [], outcome: "pending", guarantees: [] };
  let reads = 0;
  const readText = options.readText ?? ((op: string, n: number) => `${op} text ${n}`);
  let spec: unknown;
  const context = createContext({}, { microtaskMode: "afterEvaluate", codeGeneration: { strings: false, wasm: false } });
  // Values cross into the program as JSON text parsed inside the context, so they belong to its realm.
  const parse = new Script("(text) => JSON.parse(text)").runInContext(context) as (text: string) => unknown;
  // A trusted function is async: its result is a promise of the context's realm (`.then` works on it).
  const resolved = new Script("(value) => Promise.resolve(value)").runInContext(context) as (value: unknown) => unknown;
  const stringify = new Script("(value) => JSON.stringify(value === undefined ? null : value)").runInContext(context) as (v: unknown) => string;
  const modules: Record<string, unknown> = {
    countersign: { program: (s: unknown) => ((spec = s), s) },
  };
  for (const [connector, helpers] of Object.entries(contractsByConnector)) {
    modules[`trusted/${connector}/contracts`] = Object.fromEntries(helpers.map((h) => [h.name, (...a: unknown[]) => parse(JSON.stringify((h.build as unknown as (...x: unknown[]) => Json)(...(JSON.parse(stringify(a)) as unknown[]))))]));
  }
  // Direct calls are rewritten to host.call with their site; a call the rewrite cannot see (through
  // an alias the analyzer should have refused) still records, at the unknown site 0:0.
  for (const connector of set.connectors.keys()) {
    const actions = [...set.actions.values()].filter((a) => a.connector === connector);
    modules[`trusted/${connector}`] = Object.fromEntries(actions.map((a) => [actionFunctionName(a.name), (args: unknown) => host.call(a.op, 0, 0, args)]));
  }
  const host = {
    require: (name: string) => {
      const m = modules[name];
      if (m === undefined) throw new Error(`the program requires ${name}`);
      return m;
    },
    spec: () => spec,
    guarantees: (text: string) => (trace.guarantees = JSON.parse(text) as Json[]),
    settle: (outcome: "returned" | "threw", error: string) => {
      trace.outcome = outcome;
      if (outcome === "threw") trace.error = error;
    },
    call: (op: string, line: number, column: number, args: unknown) => {
      if (trace.calls.length >= MAX_CALLS) throw new Error("too many trusted calls");
      const sent = JSON.parse(stringify(args)) as Json;
      trace.calls.push({ op, site: { line, column }, args: isRecord(sent) ? sent : { "(not an object)": sent } });
      return resolved(parse(JSON.stringify(resultOf(op, () => readText(op, reads++), trace.calls.length))));
    },
  };
  context[HOST] = host;
  try {
    script.runInContext(context, { timeout: options.timeoutMs ?? 250 });
  } catch (err) {
    if ((err as { code?: string }).code !== "ERR_SCRIPT_EXECUTION_TIMEOUT") throw err;
    trace.outcome = "timeout";
  }
  return trace;
}

function isRecord(v: Json): v is Record<string, Json> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A plausible result for each op; reads return the caller's text. */
function resultOf(op: string, text: () => string, n: number): Json {
  switch (op) {
    case "email.get_draft":
      return { id: `draft-${n}`, to: [text()], subject: text(), body: text() };
    case "email.draft_email":
      return { id: `draft-${n}` };
    case "fs.read_file":
      return { content: text() };
    case "fs.list_dir":
      return { entries: [text(), text()] };
    case "http.get":
    case "http.post":
      return { status: 200, body: text() };
    default:
      return { id: `${op}-${n}`, ok: true };
  }
}

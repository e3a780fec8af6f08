import { promiseHooks } from "node:v8";
import { createContext, Script, type Context } from "node:vm";
import { ts } from "../../../src/analyze/compile/typescript.js";
import { actionFunctionName, findActionByFunction } from "../../../src/manifest/function-name.js";
import { fillTemplate } from "../../../src/connector/interpolate.js";
import type { ManifestSet } from "../../../src/manifest/manifest-set.js";
import type { Json } from "../../../src/model/json.js";
import type { Site } from "../../../src/model/facts.js";
import { contractsByConnector } from "../../../trusted/contracts/index.js";
import { hardeningScript } from "../../../src/environment/harden.js";
import { marshal } from "../../../src/connector/marshal.js";

/** One trusted call as a run made it: the op, where in the source, and the arguments as sent. */
export interface ObservedCall {
  op: string;
  site: Site;
  args: Record<string, Json>;
}

/** A trusted call the boundary refused before it reached the host: its arguments are not plain data. */
export interface RefusedCall {
  op: string;
  site: Site;
  reason: string;
}

export interface Trace {
  calls: ObservedCall[];
  /** Calls the program made that never crossed (as the sandbox records them, status refused): each still counts at its site. */
  refused: RefusedCall[];
  /** returned: main resolved; threw: main rejected; pending: main never settled; timeout: stopped. */
  outcome: "returned" | "threw" | "pending" | "timeout";
  error?: string;
  /**
   * The guarantees as the real contract helpers built them when the module was evaluated; null when
   * the module threw before it called program(...): no program was built and main never ran.
   */
  guarantees: Json[] | null;
}

export interface RunOptions {
  /** The text a read returns (a draft's body, a file, an HTTP response): the n-th read of the run. */
  readText?: (op: string, n: number) => string;
  /** Results' ids named after their op alone, not after how many calls came before (a run then differs from another only where the reads do). */
  stableIds?: boolean;
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
 * source site, and the module runs in a node:vm context (its own built-ins, no Node globals)
 * built to the environment the analyzer models (src/environment: every other built-in removed,
 * the rest frozen), whose microtasks drain before `run` returns. Trusted functions only record and
 * return plausible data; contract helpers are the real ones. It runs the programs of the generator
 * and of tests faithfully, in the realm the sandbox will offer; it is no sandbox itself.
 */
export function compileProgram(source: string, set: ManifestSet): Compiled {
  const file = ts.createSourceFile("program.ts", source, ts.ScriptTarget.ES2022, true);
  const trusted = trustedImports(file, set);
  const transformer: ts.TransformerFactory<ts.SourceFile> = (context) => (root) => {
    const f = context.factory;
    const isTrustedCall = (node: ts.Node): node is ts.CallExpression =>
      ts.isCallExpression(node) && ts.isIdentifier(node.expression) && trusted.has(node.expression.text);
    // A trusted call becomes a call of the recorder, with its site; its promise is quieted like any other.
    const recordedCall = (node: ts.CallExpression): ts.Expression => {
      const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
      const args = node.arguments.map((a) => ts.visitNode(a, (n) => visit(n, node)) as ts.Expression);
      const recorder = f.createPropertyAccessExpression(f.createIdentifier(HOST), "call");
      const op = trusted.get((node.expression as ts.Identifier).text)!;
      return f.createCallExpression(recorder, undefined, [
        f.createStringLiteral(op),
        f.createNumericLiteral(line + 1),
        f.createNumericLiteral(character + 1),
        ...args,
      ]);
    };
    const visit = (node: ts.Node, parent?: ts.Node): ts.Node => {
      const out = isTrustedCall(node)
        ? recordedCall(node)
        : ts.visitEachChild(node, (child) => visit(child, node), context);
      // A promise the program drops may reject with nobody listening; mark it handled (a no-op
      // reaction changes no other job's order) so that it does not surface as the test's own error.
      const chained =
        parent !== undefined &&
        (ts.isPropertyAccessExpression(parent) ||
          ts.isElementAccessExpression(parent) ||
          (ts.isCallExpression(parent) && parent.expression === node));
      return ts.isCallExpression(node) && !chained
        ? f.createCallExpression(f.createIdentifier(QUIET), undefined, [out as ts.Expression])
        : out;
    };
    return ts.visitNode(root, (n) => visit(n)) as ts.SourceFile;
  };
  // The original tree's positions are what sites are measured against, so transform that tree.
  const js = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, removeComments: true },
    transformers: { before: [importsFirst, transformer], after: [withoutEsModuleMarker] },
  }).outputText;
  const script = new Script(driver(js), { filename: "program.js" });
  // One realm per program, hardened once: its intrinsics are frozen, so one run cannot change what the next sees.
  let context: Context | undefined;
  return { run: (options = {}) => runOnce(script, (context ??= hardenedContext()), set, options) };
}

/**
 * A module's imports are bound before any of its code runs, wherever they stand; the CommonJS
 * output requires them where they stand. Moving them first keeps an import below its use working
 * as it does in the sandbox.
 */
const importsFirst: ts.TransformerFactory<ts.SourceFile> = () => (root) => {
  const imports = root.statements.filter(ts.isImportDeclaration);
  return ts.factory.updateSourceFile(root, [...imports, ...root.statements.filter((s) => !ts.isImportDeclaration(s))]);
};

/**
 * The CommonJS output marks `exports` with `Object.defineProperty(exports, "__esModule", ...)`;
 * the hardened realm has no defineProperty, and nothing here reads the mark.
 */
const withoutEsModuleMarker: ts.TransformerFactory<ts.SourceFile> = () => (root) => {
  const isMarker = (s: ts.Statement): boolean =>
    ts.isExpressionStatement(s) &&
    ts.isCallExpression(s.expression) &&
    ts.isPropertyAccessExpression(s.expression.expression) &&
    s.expression.expression.name.text === "defineProperty" &&
    s.expression.arguments[1] !== undefined &&
    ts.isStringLiteral(s.expression.arguments[1]) &&
    s.expression.arguments[1].text === "__esModule";
  return ts.factory.updateSourceFile(
    root,
    root.statements.filter((s) => !isMarker(s)),
  );
};

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
      const action = findActionByFunction(set, connector, exported);
      if (action !== undefined) out.set(element.name.text, action.op);
    }
  }
  return out;
}

// Runs inside the hardened realm: take the host's few functions (and take them off the global
// object), build the modules the program imports as functions of this realm, then evaluate the
// CommonJS module and main, and report how main settled. Only strings cross from the host into the
// realm, so that no object of the host's realm (nor its Function) is within the program's reach; a
// trusted call's arguments go out as they are, and the host marshals them without running their code.
function driver(js: string): string {
  return `(() => {
  const host = ${HOST};
  delete ${HOST};
  const parse = JSON.parse;
  const stringify = (value) => JSON.stringify(value === undefined ? null : value);
  const exportsOf = JSON.parse(host.exports());
  let spec;
  // A host answer is {"value": ...} or {"error": "..."}, thrown here as an error of this realm.
  const answer = (text) => {
    const out = parse(text);
    if ("error" in out) throw new Error(out.error);
    return out.value;
  };
  // A trusted function is async, as the real ones are: its result (or its refusal) is a promise of this realm.
  const trusted = (op, line, column, args) => new Promise((resolve) => resolve(answer(host.call(op, line, column, args))));
  const modules = { countersign: { program: (s) => ((spec = s), s) } };
  for (const name of Object.keys(exportsOf)) {
    if (name === "countersign") continue;
    const m = {};
    for (const [fn, op] of Object.entries(exportsOf[name])) {
      m[fn] = name.endsWith("/contracts") ? (...a) => answer(host.contract(name, fn, stringify(a))) : (args) => trusted(op, 0, 0, args);
    }
    modules[name] = m;
  }
  const require = (name) => {
    const m = modules[name];
    if (m === undefined) throw new Error("the program requires " + name);
    return m;
  };
  const quiet = (value) => {
    if (value !== null && typeof value === "object" && typeof value.then === "function") value.then(undefined, () => {});
    return value;
  };
  const settle = (outcome, error) => host.settle(outcome, error);
  const message = (e) => String(e !== null && typeof e === "object" && e.message !== undefined ? e.message : e);
  try {
    (function (require, exports, module, ${HOST}, ${QUIET}) {
${js}
    })(require, {}, { exports: {} }, { call: trusted }, quiet);
  } catch (e) {
    // The module itself threw (top-level code runs before main): main never starts.
    if (spec !== undefined) host.guarantees(stringify(spec.guarantees === undefined ? [] : spec.guarantees));
    settle("threw", message(e));
    return;
  }
  if (spec === undefined) throw new Error("the module did not call program(...)");
  host.guarantees(stringify(spec.guarantees === undefined ? [] : spec.guarantees));
  Promise.resolve()
    .then(() => spec.main())
    .then(() => settle("returned", ""), (e) => settle("threw", message(e)));
})();`;
}

const hardening = new Script(hardeningScript(), { filename: "environment.js" });
// V8's console has a prototype object of its own; the sandbox's is a plain object holding two
// functions, and so is this one. Output is dropped: a trace records the trusted calls.
const plainConsole = new Script(
  "globalThis.console = { log: (...data) => undefined, error: (...data) => undefined };",
  { filename: "console.js" },
);

/**
 * A fresh realm (its own built-ins, no Node globals, no code from strings) built to the
 * environment. `beforeHardening` sees it just before the hardening script runs.
 */
export function hardenedContext(beforeHardening?: (context: Context) => void): Context {
  const context = createContext(
    {},
    { microtaskMode: "afterEvaluate", codeGeneration: { strings: false, wasm: false } },
  );
  plainConsole.runInContext(context);
  beforeHardening?.(context);
  hardening.runInContext(context);
  return context;
}

function runOnce(script: Script, context: Context, set: ManifestSet, options: RunOptions): Trace {
  const trace: Trace = { calls: [], refused: [], outcome: "pending", guarantees: null };
  let reads = 0;
  const readText = options.readText ?? ((op: string, n: number) => `${op} text ${n}`);
  // Each module's exports: a trusted function's op, or a contract helper's name.
  const exports: Record<string, Record<string, string>> = { countersign: { program: "program" } };
  for (const [connector, helpers] of Object.entries(contractsByConnector))
    exports[`trusted/${connector}/contracts`] = Object.fromEntries(helpers.map((h) => [h.name, h.name]));
  for (const connector of set.connectors.keys()) {
    const actions = [...set.actions.values()].filter((a) => a.connector === connector);
    exports[`trusted/${connector}`] = Object.fromEntries(actions.map((a) => [actionFunctionName(a.name), a.op]));
  }
  const agent = [...(set.agent?.actions.values() ?? [])];
  if (agent.length > 0)
    exports["trusted/agent"] = Object.fromEntries(agent.map((a) => [actionFunctionName(a.name), a.op]));
  // Host functions take and give strings, and never throw into the realm: a failure is an answer.
  const answer = (run: () => unknown): string => {
    try {
      return JSON.stringify({ value: run() ?? null });
    } catch (err) {
      return JSON.stringify({ error: (err as Error).message });
    }
  };
  const record = (op: string, site: Site, sent: Json): Json => {
    if (trace.calls.length >= MAX_CALLS) throw new Error("too many trusted calls");
    trace.calls.push({ op, site, args: isRecord(sent) ? sent : { "(not an object)": sent } });
    return resultOf(op, () => readText(op, reads++), options.stableIds === true ? 0 : trace.calls.length);
  };
  const host = {
    exports: () => JSON.stringify(exports),
    guarantees: (text: string) => void (trace.guarantees = JSON.parse(text) as Json[]),
    settle: (outcome: "returned" | "threw", error: string) => {
      trace.outcome = outcome;
      if (outcome === "threw") trace.error = error;
    },
    contract: (module: string, name: string, args: string) =>
      answer(() => {
        const helper = contractsByConnector[/^trusted\/([a-z0-9_]+)\/contracts$/.exec(module)![1]!]!.find(
          (h) => h.name === name,
        )!;
        return (helper.build as unknown as (...x: unknown[]) => Json)(...(JSON.parse(args) as unknown[]));
      }),
    // Direct calls are rewritten to this with their site; a call the rewrite cannot see (through
    // an alias the analyzer should have refused) still records, at the unknown site 0:0.
    call: (op: string, line: number, column: number, args: unknown) =>
      answer(() => {
        const site = { line, column };
        const action = set.agent?.actions.get(op);
        // As the trusted wrapper reads them: plain data, no program code run. A refusal throws into
        // the program, and the call still counts at its site (for an agent action, as its first
        // step, which is the effect that counts its calls).
        let sent: Json;
        try {
          sent = marshal(args);
        } catch (err) {
          trace.refused.push({ op: action?.steps[0]?.op ?? op, site, reason: (err as Error).message });
          throw err;
        }
        if (action === undefined) return record(op, site, sent);
        // An agent action makes its steps' calls, each with its template filled as the connector fills it.
        if (!isRecord(sent)) throw new Error(`${op}: the arguments must be an object`);
        const scope: Record<string, Json> = { args: sent };
        let output: Json = null;
        for (const [i, step] of action.steps.entries()) {
          output = record(step.op, site, fillTemplate(action.templates.execute[i]!, scope) ?? {});
          scope[action.manifest.execute[i]!.id] = output;
        }
        return output;
      }),
  };
  context[HOST] = host;
  const made: Promise<unknown>[] = [];
  const stopWatching = promiseHooks.onInit((promise) => {
    if (!(promise instanceof Promise)) made.push(promise); // the realm's, not the host's
  });
  try {
    script.runInContext(context, { timeout: options.timeoutMs ?? 250 });
  } catch (err) {
    if ((err as { code?: string }).code !== "ERR_SCRIPT_EXECUTION_TIMEOUT") throw err;
    trace.outcome = "timeout";
  } finally {
    stopWatching();
    // A rejection the program leaves unhandled where quiet(...) cannot reach (the promises of async
    // callbacks that map or forEach drop, a promise kept and never awaited) belongs to the run, as in
    // the sandbox: the run is over (its microtasks drained), so mark each handled before the test
    // process's own rejection tracking sees it.
    for (const promise of made) Promise.prototype.then.call(promise, undefined, () => {});
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

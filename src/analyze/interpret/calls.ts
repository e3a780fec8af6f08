import { ts } from "../compile/typescript.js";
import type { AbstractValue, CountRange, Json, Provenance } from "../../model/index.js";
import { urlHost } from "../../constraint/index.js";
import { everyResultField, type LoadedAction } from "../../manifest/index.js";
import { bindName, withDefault } from "./bind.js";
import { namespaces as environmentNamespaces } from "../../environment/index.js";
import { callGlobal, callMethod } from "../domain/builtins.js";
import { evaluateExpression, inspected, spread } from "./expressions.js";
import type { Interpreter } from "./interpreter.js";
import {
  asArray,
  asCollection,
  type Collection,
  collectionValue,
  constant,
  derived,
  isPlainObject,
  join,
  numeric,
  singleArray,
  tuple,
  unknown,
} from "../domain/lattice.js";
import { mutateTracked } from "./mutate.js";
import { COLLECTION_MUTATORS, isNewCollection, MUTATORS, valueSymbol } from "../compile/scan.js";
import { skipOuter } from "../compile/skip-outer.js";
import { runBlock } from "./statements.js";
import { countOf, joinStates, type State } from "./state.js";
import { resolveApiCall } from "../compile/trusted-callee.js";
import { arrayOf, collectionItem, getProperty, iterated } from "../domain/values.js";
import { MAX_UNROLL_PER_LOOP } from "../limits.js";

export type FunctionNode = ts.FunctionDeclaration | ts.FunctionExpression | ts.ArrowFunction | ts.MethodDeclaration;

/**
 * The function a symbol names: a function declaration, a `const` bound to a function expression, or
 * the name a function expression has inside itself (`function again() { again(); }`).
 */
export function localFunction(it: Interpreter, symbol: ts.Symbol): FunctionNode | undefined {
  const declaration = symbol.valueDeclaration;
  if (declaration === undefined || declaration.getSourceFile() !== it.file) return undefined;
  if ((ts.isFunctionDeclaration(declaration) || ts.isFunctionExpression(declaration)) && declaration.body !== undefined)
    return declaration;
  if (
    ts.isVariableDeclaration(declaration) &&
    ts.getCombinedNodeFlags(declaration) & ts.NodeFlags.Const &&
    declaration.initializer !== undefined
  ) {
    const init = skipOuter(declaration.initializer);
    if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) return init;
  }
  return undefined;
}

const isAsync = (fn: FunctionNode): boolean => (ts.getCombinedModifierFlags(fn) & ts.ModifierFlags.Async) !== 0;

/** An async call whose caller does not wait for it right away: its continuation may see later writes. */
function isDetached(fn: FunctionNode, call: ts.Node): boolean {
  if (!isAsync(fn)) return false;
  let parent = call.parent;
  while (ts.isParenthesizedExpression(parent)) parent = parent.parent;
  return !ts.isAwaitExpression(parent);
}

/** Run a function body from `state` (parameters already bound); returns the end state and the returned value. */
function runBody(it: Interpreter, fn: FunctionNode, state: State): { end: State | undefined; value: AbstractValue } {
  const body = fn.body;
  if (body === undefined) return { end: state, value: unknown("undefined") };
  if (!ts.isBlock(body)) return { end: state, value: evaluateExpression(it, body, state) };
  const flow = runBlock(it, body.statements, state);
  const fallsOff = flow.normal !== undefined ? unknown("undefined") : undefined;
  const value =
    flow.returned === undefined
      ? (fallsOff ?? unknown("undefined"))
      : fallsOff === undefined
        ? flow.returned
        : join(flow.returned, fallsOff);
  return { end: joinStates(flow.normal, flow.returns), value };
}

/**
 * Bind the parameters in order, running defaults as JavaScript does: surely when the argument is
 * missing, maybe when it may be undefined or when the arguments are not known (`args` undefined:
 * a call from elsewhere, a recursive call, spread arguments).
 */
function bindParameters(it: Interpreter, fn: FunctionNode, args: AbstractValue[] | undefined, state: State): void {
  fn.parameters.forEach((parameter, index) => {
    let value: AbstractValue;
    if (args === undefined)
      value = withDefault(
        it,
        unknown("a parameter of a function called from elsewhere", true),
        parameter.initializer,
        state,
      );
    else if (parameter.dotDotDotToken !== undefined)
      value = arrayOf(args.slice(index).map((v) => ({ value: v, spread: false })));
    else {
      const given = args[index];
      value =
        given === undefined
          ? parameter.initializer !== undefined
            ? evaluateExpression(it, parameter.initializer, state)
            : unknown("undefined")
          : withDefault(it, given, parameter.initializer, state);
    }
    bindName(it, parameter.name, value, state);
  });
}

/**
 * Interpret a call of a local function at its call site. The callee sees the caller's variables
 * (or, when detached, unknown values for any variable written anywhere); its own writes to
 * outer variables are volatile in the pre-pass, so only the counts flow back.
 */
export function invoke(
  it: Interpreter,
  fn: FunctionNode,
  args: AbstractValue[] | undefined,
  state: State,
  detached: boolean,
): AbstractValue {
  if (it.frames.isOnStack(fn) || it.frames.tooDeep()) {
    it.counts.mayThrow(state); // deep recursion may overflow the stack
    escapeFunction(it, fn, state); // recursion: any number of calls
    const result = unknown("the result of a recursive call", true); // it may return any argument it was given
    return isAsync(fn) ? it.promises.of(result) : result;
  }
  return it.frames.within(fn, false, () => {
    const callee: State = {
      env: new Map((detached ? it.vars.havoc(state) : state).env),
      counts: new Map(state.counts),
    };
    bindParameters(it, fn, args, callee);
    if (!detached) {
      const { end, value } = runBody(it, fn, callee);
      if (end !== undefined) state.counts = end.counts;
      // an async function resolves what it returns
      return isAsync(fn) ? it.promises.of(it.promises.awaited(value)) : value;
    }
    // A detached async call that throws rejects its promise, and its caller goes on: with the
    // smallest counts of any point where the body may throw, and the largest it reached at all.
    const { result, thrown } = it.counts.collectThrows(() => it.counts.accumulate(() => runBody(it, fn, callee)));
    const { result: ran, acc } = result;
    let after = ran.end;
    if (thrown !== undefined) {
      const counts = new Map(thrown.counts);
      for (const [site, reached] of acc.counts) {
        const at = countOf(thrown, site);
        counts.set(site, {
          min: at.min,
          max: at.max === null || reached.max === null ? null : Math.max(at.max, reached.max),
        });
      }
      after = joinStates(after, { env: new Map(), counts });
    }
    if (after !== undefined) state.counts = after.counts;
    return it.promises.of(it.promises.awaited(ran.value));
  });
}

/** A function that escapes (stored, passed, returned) may run any number of times, any time later. */
export function escapeFunction(it: Interpreter, fn: FunctionNode, state: State): void {
  if (it.frames.isOnStack(fn, true)) return;
  it.frames.within(fn, true, () => {
    it.counts.repeat(state, it.vars.havoc(state), { min: 0, max: null }, (s) => {
      bindParameters(it, fn, undefined, s); // defaults run on each call: their effects count too
      const { end, value } = runBody(it, fn, s);
      it.influence.add(value); // whoever calls it may test what it returns (a sort comparator does)
      return { normal: end };
    });
  });
}

export function evaluateCall(it: Interpreter, call: ts.CallExpression, state: State): AbstractValue {
  const api = resolveApiCall(it.checker, it.set, call);
  if (api?.kind === "unresolved") {
    it.unsupported(call, "a call of a trusted function missing from the manifests");
    return unknown("an unresolved call");
  }
  if (api !== undefined) {
    const args = call.arguments.map((a) => evaluateExpression(it, a, state));
    if (api.kind === "countersign" && api.name === "fromHandle")
      return it.promises.of(it.influence.result([handleSource(call)], []));
    if (api.kind !== "action") return unknown(`${api.name}()`);
    const given = actionArgs(api.action, args[0] ?? unknown("undefined"));
    it.sites.record(call, api.action, given);
    it.counts.count(state, call);
    const { own, steps } = resultProvenance(it, api.action, given);
    return it.promises.of(it.influence.result([own], steps));
  }
  const callee = skipOuter(call.expression);
  if (ts.isArrowFunction(callee) || ts.isFunctionExpression(callee)) {
    return invoke(it, callee, evaluateArgs(it, call.arguments, state).values, state, isDetached(callee, call));
  }
  if (ts.isIdentifier(callee)) {
    const symbol = valueSymbol(it.checker, callee);
    const fn = symbol === undefined ? undefined : localFunction(it, symbol);
    if (fn !== undefined)
      return invoke(it, fn, evaluateArgs(it, call.arguments, state).values, state, isDetached(fn, call));
    if (symbol?.valueDeclaration !== undefined && it.isLibDeclaration(symbol.valueDeclaration)) {
      const args = argumentValues(evaluateArgs(it, call.arguments, state));
      return inspected(it, callGlobal(callee.text, args), args);
    }
  }
  if (ts.isPropertyAccessExpression(callee)) return methodCall(it, call, callee.expression, callee.name.text, state);
  const key = ts.isElementAccessExpression(callee) ? skipOuter(callee.argumentExpression) : undefined;
  if (key !== undefined && (ts.isStringLiteral(key) || ts.isNoSubstitutionTemplateLiteral(key)))
    // xs["push"](x) is xs.push(x)
    return methodCall(it, call, (callee as ts.ElementAccessExpression).expression, key.text, state);
  const target = evaluateExpression(it, callee, state);
  if (call.questionDotToken !== undefined) it.chains.mayShortCircuit(target, state);
  return derived([target, evaluateArgs(it, call.arguments, state).list], "the result of a function value");
}

/**
 * A quarantined result taken up by its id (a literal: the construct check refuses any other
 * argument). Which ops it came from is the authority's to say when the program is submitted.
 */
function handleSource(call: ts.CallExpression): Provenance {
  const id = call.arguments[0];
  const handle =
    id !== undefined && (ts.isStringLiteral(id) || ts.isNoSubstitutionTemplateLiteral(id))
      ? id.text
      : "an unknown handle";
  return { source: `quarantined result ${handle}`, untrusted: true, handle };
}

/**
 * Where a trusted call's result comes from. An agent action returns its last step's output, which
 * may hold what any earlier step read: its result derives from every step's op as well as its own.
 */
function resultProvenance(
  it: Interpreter,
  action: LoadedAction,
  args: Record<string, AbstractValue>,
): { own: Provenance; steps: Provenance[] } {
  // What an agent action does with its `url` input is the agent's word: only a trusted op's call says where it went.
  const host = args.url === undefined || isAgentAction(action) ? null : oneHost(args.url);
  const own: Provenance = {
    source: `result of ${action.op}`,
    untrusted: !resultTrusted(action),
    op: action.op,
    ...(host === null ? {} : { host }),
  };
  const steps = it.set.agent?.actions.get(action.op)?.steps ?? [];
  return {
    own,
    steps: steps.map((step) => ({
      source: `result of ${step.op}, a step of ${action.op}`,
      untrusted: true,
      op: step.op,
    })),
  };
}

/**
 * The one host every value a call's `url` may take goes to (`host` or `host:port`), or null when there is not one known
 * host.
 */
function oneHost(url: AbstractValue): string | null {
  const hosts =
    url.kind === "const"
      ? url.values.map((v) => (typeof v === "string" ? urlHost(v, false) : null))
      : url.kind === "string"
        ? [urlHost(url.prefix, true)]
        : [null];
  const first = hosts[0] ?? null;
  return hosts.every((h) => h === first) ? first : null;
}

/**
 * Whether an action's manifest declares its result trusted (every result field `trusted = true`,
 * e.g. a listing of one's own sandbox). An agent's own action never vouches for what it reads.
 */
function resultTrusted(action: LoadedAction): boolean {
  return everyResultField(action.manifest, "trusted") && !isAgentAction(action);
}

function isAgentAction(action: LoadedAction): boolean {
  return action.op.startsWith("agent.");
}

interface Arguments {
  values: AbstractValue[] | undefined; // each argument, unless a spread hides how many there are
  list: AbstractValue; // all of them as one array value
}

function evaluateArgs(it: Interpreter, args: ts.NodeArray<ts.Expression>, state: State): Arguments {
  let exact = true;
  const values: AbstractValue[] = [];
  const parts: { value: AbstractValue; spread: boolean }[] = [];
  for (const arg of args) {
    if (ts.isSpreadElement(arg)) {
      const v = spread(it, arg, state);
      parts.push({ value: v, spread: true });
      if (v.kind === "const" && v.values.length === 1 && Array.isArray(v.values[0]))
        for (const x of v.values[0]) values.push(constant(x));
      else exact = false;
    } else {
      const v = evaluateExpression(it, arg, state);
      parts.push({ value: v, spread: false });
      values.push(v);
    }
  }
  return { values: exact ? values : undefined, list: arrayOf(parts) };
}

/** The argument values for a built-in: when their number is unknown, one value standing for them all. */
function argumentValues(args: Arguments): AbstractValue[] {
  return args.values ?? [derived([args.list], "spread arguments")];
}

/** The trusted call's arguments keyed by manifest input; inputs that are surely absent are left out. */
function actionArgs(action: LoadedAction, value: AbstractValue): Record<string, AbstractValue> {
  const out: Record<string, AbstractValue> = {};
  for (const input of action.manifest.inputs) {
    const key = input.name;
    if (value.kind === "record") {
      const field = value.fields[key];
      if (field !== undefined) out[key] = field;
    } else if (value.kind === "const" && value.values.every(isPlainObject)) {
      const present = value.values.filter((v) => Object.hasOwn(v as object, key));
      if (present.length === value.values.length)
        out[key] = constantsOf(present.map((v) => (v as Record<string, never>)[key]!));
      else if (present.length > 0) out[key] = unknown(`${key}, given on some calls only`);
    } else out[key] = value.kind === "unknown" ? value : derived([value], "an argument that is not an object");
  }
  return out;
}

function constantsOf(values: never[]): AbstractValue {
  return values.map((v) => constant(v)).reduce(join);
}

const namespaces = environmentNamespaces();
const perElement = new Set(["map", "forEach", "filter", "flatMap"]);
const someElements = new Set(["some", "every", "find", "findIndex"]);

/**
 * `ns.name(...)` (or `ns?.name(...)`, `ns["name"](...)`): a namespace member, an array callback, a mutator or a
 * built-in method.
 */
function methodCall(
  it: Interpreter,
  call: ts.CallExpression,
  ns: ts.Expression,
  name: string,
  state: State,
): AbstractValue {
  if (ts.isIdentifier(ns) && namespaces.has(ns.text)) {
    const declaration = it.checker.getSymbolAtLocation(ns)?.valueDeclaration;
    if (declaration !== undefined && it.isLibDeclaration(declaration))
      return staticCall(it, `${ns.text}.${name}`, call, state);
  }
  const receiver = evaluateExpression(it, ns, state);
  // `ns?.name(x)` skips x when ns is nullish; `(ns?.name)(x)` does not (the parentheses end the chain).
  if ((call.expression as ts.PropertyAccessExpression | ts.ElementAccessExpression).questionDotToken !== undefined)
    it.chains.mayShortCircuit(receiver, state);
  if (call.questionDotToken !== undefined) it.chains.mayShortCircuit(getProperty(receiver, name), state);
  const collection = asCollection(receiver);
  if (collection !== undefined) return collectionCall(it, call, ns, receiver, collection, name, state);
  const callback = call.arguments[0] === undefined ? undefined : functionArgument(it, call.arguments[0]);
  if (callback !== undefined && (perElement.has(name) || someElements.has(name) || name === "reduce")) {
    const rest = call.arguments.slice(1).map((a) => evaluateExpression(it, a, state));
    return arrayCallback(it, receiver, name, callback, rest, state);
  }
  const args = evaluateArgs(it, call.arguments, state);
  if (MUTATORS.has(name) || COLLECTION_MUTATORS.has(name)) {
    // An array mutator; or a Map or Set one on a value not known to be a collection: whatever it is, it may now hold
    // the arguments.
    mutateTracked(
      it,
      ns,
      state,
      (v) => (MUTATORS.has(name) ? mutated(v, name, args.list) : derived([v, args.list], "an object changed in place")),
      [args.list],
    );
    return derived([receiver, args.list], `the result of .${name}()`);
  }
  const values = argumentValues(args);
  const result = inspected(it, callMethod(receiver, name, values), [receiver, ...values]);
  // Where a string or an array has something: a number (-1 when nowhere).
  if (
    (name === "indexOf" || name === "lastIndexOf" || name === "charCodeAt") &&
    (asArray(receiver) !== undefined || iterated(receiver) !== undefined)
  )
    numeric(result);
  return result;
}

/**
 * A method of a Map, a Set or one of their iterators (see Collection in lattice.ts). Reads join
 * over every entry, whichever the key: a value got with a key the analysis does not know is
 * influenced by that key (it chose the entry), and may be undefined (a missing key), which depends
 * on every key the collection holds. Changes go to the variable when the pre-pass tracks it (see
 * mutate.ts); callbacks run once per entry, as many times as the size allows. Nothing depends on
 * the order of entries.
 */
function collectionCall(
  it: Interpreter,
  call: ts.CallExpression,
  ns: ts.Expression,
  receiver: AbstractValue,
  c: Collection,
  name: string,
  state: State,
): AbstractValue {
  const keys = c.key ?? unknown("no key");
  if (name === "forEach" && c.kind !== "Iterator") {
    const callback = call.arguments[0] === undefined ? undefined : functionArgument(it, call.arguments[0]);
    if (callback !== undefined) {
      it.influence.add(receiver); // how many times the callback runs depends on what the collection holds
      const value = c.kind === "Map" ? (c.value ?? unknown("a value of an empty Map")) : keys;
      // forEach visits entries added while it runs: a callback that names the collection (its third parameter) may add
      // any number.
      const reachesIt =
        callback.parameters.length > 2 || callback.parameters.some((p) => p.dotDotDotToken !== undefined);
      it.counts.repeat(state, state, reachesIt ? { min: 0, max: null } : c.size, (s) => {
        invoke(it, callback, [value, keys, receiver], s, isAsync(callback));
        return { normal: s };
      });
      return unknown("undefined");
    }
  }
  const args = evaluateArgs(it, call.arguments, state);
  const values = argumentValues(args);
  const first = values[0] ?? unknown("undefined");
  const second = values[1] ?? unknown("undefined");
  const change = (next: Collection, written: AbstractValue[]): AbstractValue => {
    const value = collectionValue(next);
    mutateTracked(it, ns, state, () => value, written);
    return value;
  };
  const missing =
    c.size.max === 0 ? unknown("undefined") : derived([keys], `undefined, for a key missing from a ${c.kind}`);
  switch (`${c.kind}.${name}`) {
    case "Map.get":
      if (first.kind !== "const") it.influence.add(first); // which entry is read depends on the key
      return c.value === undefined ? unknown("undefined") : join(c.value, missing);
    case "Map.has":
    case "Set.has":
      if (c.size.max === 0) return constant(false);
      return derived([keys, first], `the result of .has()`);
    case "Map.set":
    case "Set.add": {
      const added = name === "set" ? [first, second] : [first];
      const size = { min: Math.max(c.size.min, 1), max: c.size.max === null ? null : c.size.max + 1 };
      return change(
        {
          kind: c.kind,
          key: c.key === undefined ? first : join(c.key, first),
          value: name === "set" ? (c.value === undefined ? second : join(c.value, second)) : undefined,
          size,
        },
        added,
      ); // returns the collection itself
    }
    case "Map.delete":
    case "Set.delete":
      change({ ...c, size: { min: Math.max(c.size.min - 1, 0), max: c.size.max } }, []);
      return c.size.max === 0 ? constant(false) : derived([keys, first], `the result of .delete()`);
    case "Map.clear":
    case "Set.clear":
      change({ kind: c.kind, size: { min: 0, max: 0 } }, []);
      return unknown("undefined");
    case "Map.keys":
    case "Set.keys":
    case "Set.values":
      return iterator(it, call, { kind: "Iterator", key: c.key, size: c.size });
    case "Map.values":
      return iterator(it, call, { kind: "Iterator", key: c.value, size: c.size });
    case "Map.entries":
      return iterator(it, call, { kind: "Iterator", key: collectionItem(c), size: c.size });
    case "Set.entries":
      return iterator(it, call, {
        kind: "Iterator",
        key: c.key === undefined ? undefined : tuple([c.key, c.key]),
        size: c.size,
      });
    case "Iterator.next":
      return derived([receiver], "the result of .next()"); // { value, done }: one of its items, or none
  }
  return derived([receiver, args.list], `the result of .${name}()`); // not a method of it: the call throws
}

/**
 * An iterator over a collection's items. Iterating it spends it: only one that is iterated where it
 * is made (`for (const k of m.keys())`, `[...s.values()]`, `new Set(m.keys())`) surely yields them
 * all; one kept in a variable may have been spent already.
 */
function iterator(it: Interpreter, call: ts.CallExpression, c: Collection): AbstractValue {
  let parent = call.parent;
  while (
    ts.isParenthesizedExpression(parent) ||
    ts.isAsExpression(parent) ||
    ts.isNonNullExpression(parent) ||
    ts.isSatisfiesExpression(parent)
  )
    parent = parent.parent;
  // Handed to a copy (new Map/Set, Array.from) or walked at once; a function given it could walk it twice.
  const copy =
    (ts.isNewExpression(parent) || ts.isCallExpression(parent)) &&
    parent.arguments?.[0] === call &&
    (isNewCollection(it.checker, it.file, parent) || isArrayFrom(it, parent));
  const fresh = (ts.isForOfStatement(parent) && parent.expression === call) || ts.isSpreadElement(parent) || copy;
  return collectionValue(fresh ? c : { ...c, size: { min: 0, max: c.size.max } });
}

/** A function node passed as an argument, directly or by the name of a local function. */
function functionArgument(it: Interpreter, arg: ts.Expression): FunctionNode | undefined {
  const e = skipOuter(arg);
  if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return e;
  if (!ts.isIdentifier(e)) return undefined;
  const symbol = valueSymbol(it.checker, e);
  return symbol === undefined ? undefined : localFunction(it, symbol);
}

/**
 * An array after an in-place mutator, given all its arguments as one array value: exact for
 * push/unshift of constants on a constant array; otherwise the elements and length it may have.
 */
function mutated(v: AbstractValue, name: string, args: AbstractValue): AbstractValue {
  const only = singleArray(v);
  const given = singleArray(args);
  if (only !== undefined && given !== undefined && (name === "push" || name === "unshift")) {
    return constant(name === "push" ? [...only, ...given] : [...given, ...only]);
  }
  const view = asArray(v);
  const added = asArray(args);
  if (view === undefined || added === undefined) return derived([v, args], "an object changed in place");
  const element = added.length.max === 0 ? view.element : join(view.element, added.element);
  if (name === "push" || name === "unshift") {
    const max = view.length.max === null || added.length.max === null ? null : view.length.max + added.length.max;
    return { kind: "array", element, length: { min: view.length.min + added.length.min, max } };
  }
  if (name === "sort" || name === "reverse") return { kind: "array", element: view.element, length: view.length };
  if (name === "splice") return { kind: "array", element, length: { min: 0, max: null } };
  return { kind: "array", element: view.element, length: { min: 0, max: view.length.max } }; // pop, shift
}

/** `xs.map(cb)` and friends: the callback runs once per element (or up to once, for some/every/find). */
function arrayCallback(
  it: Interpreter,
  receiver: AbstractValue,
  name: string,
  fn: FunctionNode,
  rest: AbstractValue[],
  state: State,
): AbstractValue {
  const view = asArray(receiver);
  const detached = isAsync(fn);
  const only = singleArray(receiver);
  const returns: AbstractValue[] = [];
  // The callback gets what JavaScript passes it, the array last: a default for it never runs.
  if (
    only !== undefined &&
    only.length <= MAX_UNROLL_PER_LOOP &&
    perElement.has(name) &&
    it.unrolling.take(only.length)
  ) {
    for (const [index, element] of only.entries()) {
      returns.push(invoke(it, fn, [constant(element), constant(index), receiver], state, detached));
    }
  } else {
    it.influence.add(receiver); // how many times the callback runs (and when find or some stop) depends on it
    const element = view?.element ?? derived([receiver], "an element of a collection");
    const length = view?.length ?? { min: 0, max: null };
    const iterations = perElement.has(name) || name === "reduce" ? length : { min: 0, max: length.max };
    // an array's own method passes a number
    const index = view !== undefined ? numeric(unknown("an index")) : unknown("an index");
    const args =
      name === "reduce"
        ? [join(rest[0] ?? unknown("undefined"), unknown("an accumulated value", true)), element, index, receiver]
        : [element, index, receiver];
    it.counts.repeat(state, state, iterations, (s) => {
      returns.push(invoke(it, fn, args, s, detached));
      return { normal: s };
    });
  }
  const returned = returns.length > 0 ? returns.reduce(join) : undefined;
  // filter, find, some and every test what the callback returns: it chooses, data or not.
  if (returned !== undefined && (name === "filter" || someElements.has(name))) it.influence.add(returned);
  switch (name) {
    case "map":
      if (only !== undefined) return arrayOf(returns.map((value) => ({ value, spread: false })));
      return {
        kind: "array",
        element: returned ?? unknown("an element of an empty array"),
        length: view?.length ?? { min: 0, max: null },
      };
    case "filter":
      return view === undefined
        ? derived([receiver], "the result of .filter()")
        : { kind: "array", element: view.element, length: { min: 0, max: view.length.max } };
    case "forEach":
      return unknown("undefined");
    case "find":
      return join(view?.element ?? derived([receiver], "the result of .find()"), unknown("undefined"));
    default: {
      const result = derived([receiver, ...(returned === undefined ? [] : [returned])], `the result of .${name}()`);
      return name === "findIndex" && view !== undefined ? numeric(result) : result;
    }
  }
}

/** Members of the global namespaces: Promise combinators keep what they resolve to, the rest are built-ins. */
function staticCall(it: Interpreter, name: string, call: ts.CallExpression, state: State): AbstractValue {
  if (name === "Promise.all") {
    const [arg] = call.arguments;
    if (arg !== undefined && ts.isArrayLiteralExpression(skipOuter(arg))) {
      const literal = skipOuter(arg) as ts.ArrayLiteralExpression;
      const parts = literal.elements.map((el) =>
        ts.isSpreadElement(el)
          ? { value: it.promises.awaited(evaluateExpression(it, el.expression, state)), spread: true }
          : { value: it.promises.awaited(evaluateExpression(it, el, state)), spread: false },
      );
      return it.promises.of(arrayOf(parts));
    }
    const value = arg === undefined ? unknown("undefined") : evaluateExpression(it, arg, state);
    const view = asArray(value);
    return it.promises.of(
      view === undefined
        ? derived([value], "Promise.all()")
        : { kind: "array", element: it.promises.awaited(view.element), length: view.length },
    );
  }
  const args = argumentValues(evaluateArgs(it, call.arguments, state));
  if (name === "Object.fromEntries" && !plainEntries(args[0]) && !primitiveValues(it.checker, call))
    it.unsupported(call, "Object.fromEntries over entries the analysis cannot read");
  if (name === "Promise.resolve") return it.promises.of(it.promises.awaited(args[0] ?? unknown("undefined")));
  if (name.startsWith("Promise.")) return it.promises.of(derived(args, `${name}()`));
  return inspected(it, callGlobal(name, args), args);
}

/**
 * Whether Object.fromEntries(entries) surely defines plain data: every key and value a constant or
 * a string. Otherwise a key may be toJSON, toString or valueOf and its value a function, which the
 * allowlist refuses to define anywhere else.
 */
function plainEntries(entries: AbstractValue | undefined): boolean {
  const pairs = entries === undefined ? undefined : asArray(entries);
  const leaf = pairs === undefined ? undefined : asArray(pairs.element)?.element;
  return leaf !== undefined && (leaf.kind === "const" || leaf.kind === "string");
}

/**
 * Whether the object Object.fromEntries(...) returns has primitive values by its type (no function can hide there
 * without a cast).
 */
function primitiveValues(checker: ts.TypeChecker, call: ts.CallExpression): boolean {
  const value = checker.getTypeAtLocation(call).getStringIndexType();
  const PRIMITIVE =
    ts.TypeFlags.StringLike |
    ts.TypeFlags.NumberLike |
    ts.TypeFlags.BooleanLike |
    ts.TypeFlags.Null |
    ts.TypeFlags.Undefined;
  return value !== undefined && (value.isUnion() ? value.types : [value]).every((t) => (t.flags & PRIMITIVE) !== 0);
}

export function evaluateNew(it: Interpreter, e: ts.NewExpression, state: State): AbstractValue {
  const args = (e.arguments ?? []).map((a) =>
    ts.isSpreadElement(a) ? spread(it, a, state) : evaluateExpression(it, a, state),
  );
  const name = ts.isIdentifier(e.expression) ? e.expression.text : "an object";
  if (name === "Promise") return it.promises.of(unknown("a promise"));
  if (isNewCollection(it.checker, it.file, e)) {
    if (e.arguments?.some(ts.isSpreadElement) === true)
      return collectionValue({
        kind: name as "Map" | "Set",
        key: derived(args, "a spread argument"),
        value: name === "Map" ? derived(args, "a spread argument") : undefined,
        size: { min: 0, max: null },
      });
    return collectionValue(fromIterable(it, name as "Map" | "Set", args[0], state));
  }
  return derived(args, `new ${name}()`);
}

/**
 * How many entries a collection made from one known array holds, when its keys are primitives (equal objects may be one
 * object or two).
 */
function exactSize(kind: "Map" | "Set", items: Json[] | undefined): CountRange | undefined {
  if (items === undefined) return undefined;
  const keys =
    kind === "Set"
      ? items
      : items.map((entry) => (Array.isArray(entry) ? entry[0] : typeof entry === "string" ? entry[0] : undefined));
  if (!keys.every((k) => k === null || typeof k === "string" || typeof k === "number" || typeof k === "boolean"))
    return undefined;
  const n = new Set(keys).size;
  return { min: n, max: n };
}

/** `Array.from(...)` of the environment. */
function isArrayFrom(it: Interpreter, e: ts.Node): boolean {
  if (!ts.isCallExpression(e)) return false;
  const callee = skipOuter(e.expression);
  if (
    !ts.isPropertyAccessExpression(callee) ||
    callee.name.text !== "from" ||
    !ts.isIdentifier(callee.expression) ||
    callee.expression.text !== "Array"
  )
    return false;
  const declaration = it.checker.getSymbolAtLocation(callee.expression)?.valueDeclaration;
  return declaration !== undefined && it.isLibDeclaration(declaration);
}

/**
 * What `new Map(items)` or `new Set(items)` holds: every item (a Map: each item's [0] as a key and
 * [1] as its value), at least one entry when there is an item, at most one per item (equal keys
 * make one). Items that are not iterable, or entries that are not objects, throw.
 */
function fromIterable(it: Interpreter, kind: "Map" | "Set", arg: AbstractValue | undefined, state: State): Collection {
  if (arg === undefined || (arg.kind === "const" && arg.values.every((v) => v === null)))
    return { kind, size: { min: 0, max: 0 } };
  const items = iterated(arg);
  if (items === undefined) it.counts.mayThrow(state);
  const view = items === undefined ? undefined : asArray(items);
  const item = view?.element ?? derived([arg], `an item given to new ${kind}()`);
  const length = view?.length ?? { min: 0, max: null };
  const size = exactSize(kind, singleArray(arg)) ?? { min: Math.min(length.min, 1), max: length.max };
  if (length.max === 0) return { kind, size };
  if (kind === "Set") return { kind, key: item, size };
  it.counts.mayThrow(state); // an entry that is not an object
  return { kind, key: getProperty(item, "0"), value: getProperty(item, "1"), size };
}

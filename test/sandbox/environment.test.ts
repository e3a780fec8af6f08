// The sandbox offers exactly the analyzer's allowlist: the allowlist data agrees with the lib the
// analyzer type-checks against, and the locked-down engine holds exactly that data (plus the
// members the engine needs, and what cannot be deleted), all of it frozen.
import type { QuickJSContext } from "quickjs-emscripten-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxLib } from "../../src/analyze/sandbox-lib.js";
import { ts } from "../../src/analyze/typescript.js";
import { PROGRAM_ALLOWLIST, SANDBOX_ALLOWLIST } from "../../src/sandbox/index.js";
import { ENGINE_ALLOWLIST } from "../../src/sandbox/engine-members.js";
import { lockDown, NAMING } from "../../src/sandbox/lockdown.js";
import { newQuickJS } from "../../src/sandbox/quickjs.js";

// Lib interfaces whose members live on an intrinsic prototype.
const PROTOTYPES: Record<string, string[]> = {
  Object: ["Object.prototype"],
  Function: ["%FunctionPrototype%"],
  String: ["String.prototype"],
  Number: ["Number.prototype"],
  Boolean: ["Boolean.prototype"],
  ReadonlyArray: ["Array.prototype"],
  Array: ["Array.prototype"],
  Promise: ["Promise.prototype"],
  Error: ["Error.prototype", "TypeError.prototype", "RangeError.prototype"],
  Date: ["Date.prototype"],
  RegExp: ["%RegExpPrototype%"],
  Iterator: ["%ArrayIteratorPrototype%", "%StringIteratorPrototype%"],
  IterableIterator: ["%IteratorPrototype%"],
};
// Lib interfaces that only describe shapes (or the type of a global, read through its `declare var`).
const TYPES_ONLY = new Set(["CallableFunction", "NewableFunction", "IArguments", "TemplateStringsArray", "IteratorResult", "Iterable", "ArrayLike", "PromiseLike"]);

function memberName(name: ts.PropertyName): string {
  if (ts.isComputedPropertyName(name)) return `@@${name.expression.getText().replace(/^Symbol\./, "")}`;
  return (name as ts.Identifier).text;
}

/** The allowlist the lib declares, in the sandbox's terms. */
function allowlistFromLib(): { globals: string[]; members: Record<string, string[]> } {
  const file = ts.createSourceFile("lib.d.ts", sandboxLib, ts.ScriptTarget.ES2022, true);
  const interfaces = new Map<string, string[]>();
  const globals: [string, string | undefined][] = [];
  for (const statement of file.statements) {
    if (ts.isInterfaceDeclaration(statement)) {
      const names = statement.members.filter((m) => m.name !== undefined && (ts.isPropertySignature(m) || ts.isMethodSignature(m))).map((m) => memberName(m.name!));
      interfaces.set(statement.name.text, [...(interfaces.get(statement.name.text) ?? []), ...names]);
    } else if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) globals.push([(d.name as ts.Identifier).text, d.type === undefined ? undefined : d.type.getText()]);
    } else if (ts.isFunctionDeclaration(statement)) {
      globals.push([statement.name!.text, undefined]);
    }
  }
  const members: Record<string, string[]> = {};
  const add = (target: string, names: string[]) => (members[target] = [...new Set([...(members[target] ?? []), ...names])]);
  const statics = new Set<string>();
  for (const [name, type] of globals) {
    if (type === undefined || type === "number") continue;
    add(name, interfaces.get(type) ?? []);
    statics.add(type);
  }
  for (const [name, names] of interfaces) {
    if (statics.has(name) || TYPES_ONLY.has(name)) continue;
    const targets = PROTOTYPES[name];
    if (targets === undefined) throw new Error(`the lib declares interface ${name}: map it to an intrinsic or list it as a type only`);
    for (const target of targets) add(target, names);
  }
  return { globals: globals.map(([name]) => name), members };
}

const sorted = (list: readonly string[]) => [...list].sort();

describe("the allowlist data", () => {
  it("is the analyzer's lib, global for global and member for member", () => {
    const lib = allowlistFromLib();
    expect(sorted(PROGRAM_ALLOWLIST.globals)).toEqual(sorted(lib.globals));
    const mine = Object.fromEntries(Object.entries(PROGRAM_ALLOWLIST.members).map(([k, v]) => [k, sorted(v)]));
    const theirs = Object.fromEntries(Object.entries(lib.members).map(([k, v]) => [k, sorted(v)]));
    // Intrinsics the lib gives nothing (Boolean.prototype, Object.prototype, ...) are listed empty so they get stripped.
    for (const [name, keys] of Object.entries(mine)) if (keys.length === 0) theirs[name] ??= [];
    expect(mine).toEqual(theirs);
  });
});

interface Report {
  named: Record<string, { before: { key: string; configurable: boolean }[]; after: string[]; isFunction: boolean } | null>;
  globalsAfter: string[];
  strays: string[]; // reachable objects that are neither listed nor bare functions
  unfrozen: string[];
  reachableCount: number;
  constructorsReachable: string[];
}

// Evaluated before the lockdown: takes everything it needs, and the lockdown cannot touch it.
const INSPECTOR = `(() => {
  const { getOwnPropertyDescriptor, isFrozen } = Object;
  const { ownKeys } = Reflect;
  const SafeSet = Set;
  const SafeMap = Map;
  const stringify = JSON.stringify;
  const setHas = Set.prototype.has, setAdd = Set.prototype.add, mapGet = Map.prototype.get, mapSet = Map.prototype.set;
  const G = globalThis;
${NAMING}
  const names = NAMES;
  const named = {};
  const byObject = new SafeMap();
  for (const name of names) {
    const target = resolve(name);
    if (target === undefined) { named[name] = null; continue; }
    apply(mapSet, byObject, [target, name]);
    named[name] = { before: ownKeys(target).map((k) => ({ key: keyName(k), configurable: getOwnPropertyDescriptor(target, k).configurable })), isFunction: typeof target === "function" };
  }
  const constructors = {
    Function: Function, AsyncFunction: (async function () {}).constructor,
    GeneratorFunction: (function* () {}).constructor, AsyncGeneratorFunction: (async function* () {}).constructor, eval: eval,
  };
  const roots = [G];
  for (const name of names) if (named[name] !== null) roots[roots.length] = resolve(name);
  return () => {
    const out = { named: {}, globalsAfter: ownKeys(G).map(keyName), strays: [], unfrozen: [], reachableCount: 0, constructorsReachable: [] };
    for (const name of names) {
      if (named[name] === null) { out.named[name] = null; continue; }
      out.named[name] = { before: named[name].before, after: [], isFunction: named[name].isFunction };
    }
    const seen = new SafeSet();
    const todo = [];
    for (let i = 0; i < roots.length; i++) todo[todo.length] = [roots[i], i === 0 ? "globalThis" : "root"];
    while (todo.length > 0) {
      const [object, path] = todo[todo.length - 1];
      todo.length -= 1;
      if (apply(setHas, seen, [object])) continue;
      apply(setAdd, seen, [object]);
      out.reachableCount += 1;
      const keys = ownKeys(object);
      const name = apply(mapGet, byObject, [object]);
      if (name !== undefined) out.named[name].after = keys.map(keyName);
      else if (object !== G && !(typeof object === "function" && keys.every((k) => k === "length" || k === "name"))) out.strays[out.strays.length] = path + " " + stringify(keys.map(keyName));
      if (!isFrozen(object)) out.unfrozen[out.unfrozen.length] = name ?? path;
      for (const c of ownKeys(constructors)) if (constructors[c] === object) out.constructorsReachable[out.constructorsReachable.length] = c + " at " + path;
      const proto = getPrototypeOf(object);
      if (proto !== null) todo[todo.length] = [proto, path + ".[[Prototype]]"];
      for (const key of keys) {
        const d = getOwnPropertyDescriptor(object, key);
        for (const [v, suffix] of [[d.value, ""], [d.get, " (get)"], [d.set, " (set)"]]) {
          if ((typeof v === "object" && v !== null) || typeof v === "function") todo[todo.length] = [v, (name ?? path) + "." + String(keyName(key)) + suffix];
        }
      }
    }
    return stringify(out);
  };
})()`;

let vm: QuickJSContext;
let report: Report;

beforeAll(async () => {
  const quickjs = await newQuickJS(64 << 20);
  vm = quickjs.module.newContext();
  const names = JSON.stringify(Object.keys(SANDBOX_ALLOWLIST.members));
  // The host's console, as the sandbox installs it before the lockdown.
  const consoleObject = vm.newObject();
  for (const key of ["log", "error"]) vm.newFunction(key, () => {}).consume((fn) => vm.setProp(consoleObject, key, fn));
  vm.setProp(vm.global, "console", consoleObject);
  consoleObject.dispose();
  const inspect = vm.unwrapResult(vm.evalCode(INSPECTOR.replace("NAMES", names), "inspector.js"));
  lockDown(vm, SANDBOX_ALLOWLIST);
  const json = vm.unwrapResult(vm.callFunction(inspect, vm.undefined));
  report = JSON.parse(vm.getString(json)) as Report;
  json.dispose();
  inspect.dispose();
});

afterAll(() => vm?.dispose());

// Members the lockdown cannot delete (non-configurable in the engine: constants, well-known
// symbols, lengths), listed here so that an engine upgrade that adds one is noticed.
const UNDELETABLE: Record<string, string[]> = {
  globalThis: ["Infinity", "NaN", "undefined"],
  Symbol: ["asyncIterator", "hasInstance", "isConcatSpreadable", "iterator", "match", "matchAll", "replace", "search", "species", "split", "toPrimitive", "toStringTag", "unscopables"],
  Number: ["EPSILON", "MAX_SAFE_INTEGER", "MAX_VALUE", "MIN_SAFE_INTEGER", "MIN_VALUE", "NEGATIVE_INFINITY", "NaN", "POSITIVE_INFINITY"],
  Math: ["E", "LN10", "LN2", "LOG10E", "LOG2E", "PI", "SQRT1_2", "SQRT2"],
  "String.prototype": ["length"],
  "Array.prototype": ["length"],
  "%FunctionPrototype%": ["@@hasInstance"],
};

describe("the locked-down engine", () => {
  it("has every global and member the analyzer allows", () => {
    expect(report.globalsAfter).toEqual(expect.arrayContaining([...PROGRAM_ALLOWLIST.globals]));
    for (const [name, keys] of Object.entries(PROGRAM_ALLOWLIST.members)) {
      expect(report.named[name], name).not.toBeNull();
      expect(report.named[name]!.after, name).toEqual(expect.arrayContaining([...keys]));
    }
  });

  it("has nothing else: each listed intrinsic holds exactly its list (and what cannot be deleted)", () => {
    const undeletable = (name: string) => new Set(UNDELETABLE[name] ?? []);
    expect(sorted(report.globalsAfter)).toEqual(sorted([...new Set([...SANDBOX_ALLOWLIST.globals, ...undeletable("globalThis")])]));
    const stuckAll: Record<string, string[]> = {};
    for (const [name, entry] of Object.entries(report.named)) {
      if (entry === null) {
        expect(Object.keys(ENGINE_ALLOWLIST.members), `${name} is missing from the engine`).toContain(name);
        continue;
      }
      const allowed = new Set([...SANDBOX_ALLOWLIST.members[name]!, ...(entry.isFunction ? ["length", "name", "prototype"] : [])]);
      const kept = entry.before.filter((b) => allowed.has(b.key)).map((b) => b.key);
      const stuck = entry.before.filter((b) => !allowed.has(b.key) && !b.configurable).map((b) => b.key);
      if (stuck.length > 0) stuckAll[name] = sorted(stuck);
      expect(sorted(entry.after), name).toEqual(sorted([...kept, ...stuck]));
      expect([...undeletable(name)].filter((k) => !entry.after.includes(k)), name).toEqual([]);
    }
    const expected = Object.fromEntries(
      Object.entries(UNDELETABLE)
        .filter(([name]) => name !== "globalThis")
        .map(([name, keys]) => [name, sorted(keys.filter((k) => !SANDBOX_ALLOWLIST.members[name]!.includes(k)))] as const)
        .filter(([, keys]) => keys.length > 0),
    );
    expect(stuckAll).toEqual(expected);
  });

  it("reaches nothing but the listed intrinsics and bare built-in functions, all frozen", () => {
    expect(report.reachableCount).toBeGreaterThan(100);
    expect(report.strays).toEqual([]);
    expect(report.unfrozen).toEqual([]);
  });

  it("reaches no function constructor and no eval", () => {
    expect(report.constructorsReachable).toEqual([]);
  });
});

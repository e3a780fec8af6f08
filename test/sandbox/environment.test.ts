// The sandbox runs in exactly the analyzer's environment: its QuickJS realm, built as a run builds
// it, holds the same objects with the same properties as the node:vm realm the analyzer's tests
// run programs in (both hardened by the one script of src/environment), every object the
// environment lists holds exactly its list, every member the analyzer's lib declares is there,
// all of it is frozen, and no function constructor or eval is in reach.
import { Script } from "node:vm";
import { beforeAll, describe, expect, it } from "vitest";
import { sandboxLib } from "../../src/analyze/compile/sandbox-lib.js";
import { ts } from "../../src/analyze/compile/typescript.js";
import { runtimeAllowlist } from "../../src/environment/harden.js";
import { lockDown } from "../../src/sandbox/lockdown.js";
import { newQuickJS } from "../../src/sandbox/quickjs.js";
import { hardenedContext } from "../analyze/support/concrete-runner.js";
import { inventoryScript, type Inventory, type Reached } from "../environment/realm-inventory.js";
import { sandboxRealm } from "./helpers.js";

/** The QuickJS realm as runProgram builds it, walked afterwards. */
async function sandboxInventory(): Promise<Inventory> {
  const realm = await sandboxRealm(inventoryScript());
  const json = realm.vm.unwrapResult(realm.vm.callFunction(realm.value, realm.vm.undefined));
  const inventory = JSON.parse(realm.vm.getString(json)) as Inventory;
  json.dispose();
  realm.dispose();
  return inventory;
}

/** The node:vm realm of the concrete test runner, walked the same way. */
function runnerInventory(): Inventory {
  let walk: (() => string) | undefined;
  hardenedContext((context) => (walk = new Script(inventoryScript()).runInContext(context) as () => string));
  return JSON.parse(walk!()) as Inventory;
}

const byPath = (inventory: Inventory): Map<string, Reached> => new Map(inventory.reached.map((r) => [r.path, r]));

let sandbox: Inventory;
let runner: Inventory;
beforeAll(async () => {
  sandbox = await sandboxInventory();
  runner = runnerInventory();
});

/**
 * What the two hosts may do differently, taken out: node:vm puts an object of its own (empty and
 * frozen) between its global object and Object.prototype, and cannot close its global object;
 * QuickJS alone has InternalError (an intrinsic the environment marks engine-specific).
 */
function comparable(inventory: Inventory): Reached[] {
  const engineSpecific = runtimeAllowlist()
    .objects.filter((o) => o.engineSpecific === true)
    .map((o) => o.name);
  const hostObject = inventory.reached.find((r) => r.path === "globalThis.[[Prototype]]");
  return inventory.reached
    .filter((r) => r !== hostObject && !engineSpecific.includes(r.path))
    .map((r) =>
      r.path === "globalThis"
        ? { ...r, frozen: true, proto: hostObject === undefined ? r.proto : hostObject.proto }
        : r,
    );
}

describe("the sandbox's realm and the analyzer's test realm", () => {
  it("hold the same objects, each with the same properties and prototype", () => {
    expect(sandbox.reached.length).toBeGreaterThan(150);
    expect(comparable(sandbox)).toEqual(comparable(runner));
  });

  it("differ only where the hosts must: node:vm's global object and its prototype, QuickJS's InternalError", () => {
    const host = byPath(runner).get("globalThis.[[Prototype]]")!;
    expect(host).toEqual({ path: "globalThis.[[Prototype]]", frozen: true, proto: "Object.prototype", props: {} });
    expect(byPath(runner).get("globalThis")!.frozen).toBe(false);
    expect(byPath(sandbox).get("globalThis")).toMatchObject({ frozen: true, proto: "Object.prototype" });
    expect(byPath(sandbox).get("InternalError.prototype")).toMatchObject({
      proto: "globalThis.Error.prototype",
      props: { name: expect.stringContaining("InternalError"), message: expect.any(String) },
    });
    expect(byPath(runner).has("InternalError.prototype")).toBe(false);
  });

  it("freeze everything reachable (node:vm's global object: every global fixed, as it cannot be closed)", () => {
    expect(sandbox.reached.filter((r) => !r.frozen).map((r) => r.path)).toEqual([]);
    expect(runner.reached.filter((r) => !r.frozen).map((r) => r.path)).toEqual(["globalThis"]);
    const globals = Object.values(byPath(runner).get("globalThis")!.props);
    expect(globals.filter((p) => !/ [e-]--$/.test(p))).toEqual([]); // neither configurable nor writable
  });

  it("reach no function constructor and no eval", () => {
    expect(sandbox.forbidden).toEqual([]);
    expect(runner.forbidden).toEqual([]);
  });

  it("are never half-built: a context the hardening cannot finish is a sandbox failure, not a run", async () => {
    const quickjs = await newQuickJS(64 << 20);
    const vm = quickjs.module.newContext(); // no console: a listed global is missing
    expect(() => lockDown(vm)).toThrow(
      expect.objectContaining({
        class: "internal_error",
        message: expect.stringContaining("the environment cannot find console"),
      }),
    );
    vm.dispose();
    quickjs.release();
  });
});

// Members the engines keep because they cannot be deleted: fixed primitives (the script refuses
// anything else), listed so that an engine upgrade that adds one is noticed.
const CONSTANTS: Record<string, string[]> = {
  globalThis: ["Infinity", "NaN", "undefined"],
  Number: [
    "EPSILON",
    "MAX_SAFE_INTEGER",
    "MAX_VALUE",
    "MIN_SAFE_INTEGER",
    "MIN_VALUE",
    "NEGATIVE_INFINITY",
    "NaN",
    "POSITIVE_INFINITY",
  ],
  Math: ["E", "LN10", "LN2", "LOG10E", "LOG2E", "PI", "SQRT1_2", "SQRT2"],
  ThrowTypeError: ["length", "name"], // the language fixes them
};

/** Where the inventory names an object of the environment: intrinsics and Object.prototype by their own name, globals under globalThis. */
function pathOf(name: string): string {
  const intrinsic = runtimeAllowlist().objects.some((o) => o.name === name && !o.find.startsWith("G."));
  return intrinsic || name === "Object.prototype" ? name : `globalThis.${name}`;
}

describe("each object the environment lists", () => {
  it("holds exactly its list in the sandbox, and the engine's constants", () => {
    const reached = byPath(sandbox);
    const lists = [{ name: "globalThis", keep: runtimeAllowlist().globals }, ...runtimeAllowlist().objects];
    for (const { name, keep } of lists) {
      const entry = reached.get(name === "globalThis" ? name : pathOf(name));
      expect(entry, name).toBeDefined();
      const constants = CONSTANTS[name] ?? [];
      expect(Object.keys(entry!.props).sort(), name).toEqual([...new Set([...keep, ...constants])].sort());
      for (const key of constants.filter((k) => !keep.includes(k)))
        expect(entry!.props[key], `${name}.${key}`).toMatch(/^value (number|string|undefined) .* ---$/);
    }
  });

  it("is the only kind of object with properties: anything else reachable is a function with its length and name, or empty", () => {
    const listed = new Set(["globalThis", ...runtimeAllowlist().objects.map((o) => pathOf(o.name))]);
    const others = sandbox.reached.filter((r) => !listed.has(r.path));
    expect(others.length).toBeGreaterThan(100);
    for (const r of others)
      expect(Object.keys(r.props).sort(), r.path).toEqual(Object.keys(r.props).length === 0 ? [] : ["length", "name"]);
  });
});

// Lib interfaces whose members a program finds on an object of the realm (the others describe
// shapes only, or are a global's type, read through its `declare var`).
const PROTOTYPES: Record<string, string[]> = {
  Object: ["Object.prototype"],
  Function: ["Function.prototype"],
  String: ["globalThis.String.prototype"],
  Number: ["globalThis.Number.prototype"],
  Boolean: ["globalThis.Boolean.prototype"],
  ReadonlyArray: ["globalThis.Array.prototype"],
  Array: ["globalThis.Array.prototype"],
  Promise: ["globalThis.Promise.prototype"],
  Error: ["globalThis.Error.prototype", "globalThis.TypeError.prototype", "globalThis.RangeError.prototype"],
  Date: ["globalThis.Date.prototype"],
  Map: ["globalThis.Map.prototype"],
  Set: ["globalThis.Set.prototype"],
  RegExp: ["RegExp.prototype"],
  Iterator: ["ArrayIterator.prototype", "StringIterator.prototype", "MapIterator.prototype", "SetIterator.prototype"],
  IterableIterator: ["Iterator.prototype"],
};
const SHAPES_ONLY = new Set([
  "CallableFunction",
  "NewableFunction",
  "IArguments",
  "TemplateStringsArray",
  "IteratorResult",
  "IteratorYieldResult",
  "IteratorReturnResult",
  "Iterable",
  "ArrayLike",
  "PromiseLike",
]);

function memberName(name: ts.PropertyName): string {
  if (ts.isComputedPropertyName(name)) return `@@${name.expression.getText().replace(/^Symbol\./, "")}`;
  return (name as ts.Identifier).text;
}

/** Per object of the realm (by inventory path), the members the lib lets a program use there; and the declared globals. */
function declaredByLib(): { globals: string[]; members: Map<string, Set<string>> } {
  const file = ts.createSourceFile("lib.d.ts", sandboxLib, ts.ScriptTarget.ES2022, true);
  const interfaces = new Map<string, string[]>();
  const globals: [string, string | undefined][] = [];
  for (const statement of file.statements) {
    if (ts.isInterfaceDeclaration(statement)) {
      const names = statement.members
        .filter((m) => m.name !== undefined && (ts.isPropertySignature(m) || ts.isMethodSignature(m)))
        .map((m) => memberName(m.name!));
      interfaces.set(statement.name.text, [...(interfaces.get(statement.name.text) ?? []), ...names]);
    } else if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations)
        globals.push([(d.name as ts.Identifier).text, d.type?.getText()]);
    } else if (ts.isFunctionDeclaration(statement)) {
      globals.push([statement.name!.text, undefined]);
    }
  }
  const members = new Map<string, Set<string>>();
  const add = (path: string, names: string[]) => members.set(path, new Set([...(members.get(path) ?? []), ...names]));
  const statics = new Set<string>();
  for (const [name, type] of globals) {
    if (type === undefined || type === "number") continue;
    add(`globalThis.${name}`, interfaces.get(type) ?? []);
    statics.add(type);
  }
  for (const [name, names] of interfaces) {
    if (statics.has(name) || SHAPES_ONLY.has(name)) continue;
    const paths = PROTOTYPES[name];
    if (paths === undefined)
      throw new Error(`the lib declares interface ${name}: map it to an object of the realm or list it as a shape`);
    for (const path of paths) add(path, names);
  }
  return { globals: globals.map(([name]) => name), members };
}

describe("the analyzer's lib", () => {
  it("declares exactly the globals the realm has (Symbol for types only)", () => {
    const { globals } = declaredByLib();
    const realm = Object.keys(byPath(sandbox).get("globalThis")!.props);
    expect([...globals, "undefined"].filter((g) => g !== "Symbol").sort()).toEqual(realm.sort());
  });

  it("declares only members the realm has, where a program looks for them", () => {
    const reached = byPath(sandbox);
    const missing: string[] = [];
    for (const [path, names] of declaredByLib().members) {
      if (path === "globalThis.Symbol") continue; // types only: refused as a value
      const props = reached.get(path)?.props ?? {};
      for (const name of names) if (!(name in props)) missing.push(`${path}.${name}`);
    }
    expect(missing).toEqual([]);
  });
});

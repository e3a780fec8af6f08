// marshal against hostile values made in another realm (a node:vm context, as the program's
// values are): it must copy plain data and refuse everything else without running program code.
import { createContext, Script } from "node:vm";
import { describe, expect, it } from "vitest";
import { marshal } from "../../src/connector/marshal.js";
import { MARSHAL_LIMITS } from "../../src/model/marshal-limits.js";
import { CountersignError } from "../../src/model/errors.js";

/** Evaluate `source` in a fresh context; `ran` counts every piece of program code that runs. */
function inRealm(source: string): { value: unknown; ran: () => number } {
  const context = createContext({ ran: 0 });
  const value = new Script(`(() => { ${source} })()`).runInContext(context) as unknown;
  return { value, ran: () => context.ran as number };
}

function refusal(value: unknown): { class: string; reason: unknown; path: unknown; message: string } {
  try {
    marshal(value);
  } catch (err) {
    expect(err).toBeInstanceOf(CountersignError);
    const e = err as CountersignError;
    return { class: e.class, reason: e.details?.reason, path: e.details?.path, message: e.message };
  }
  throw new Error(`marshal accepted ${String(value)}`);
}

describe("marshal copies plain data from another realm", () => {
  it("objects, arrays, strings, numbers, booleans, null; undefined fields left out; -0 is 0", () => {
    const { value } = inRealm(
      `return { to: ["a@x.com", "b@x.com"], n: -0, ok: true, none: null, skip: undefined, nested: { deep: [1, [2]] }, free: Object.create(null) };`,
    );
    const data = marshal(value);
    expect(data).toEqual({
      to: ["a@x.com", "b@x.com"],
      n: 0,
      ok: true,
      none: null,
      nested: { deep: [1, [2]] },
      free: {},
    });
    expect(Object.is((data as { n: number }).n, 0)).toBe(true);
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype); // a fresh copy in this realm
    expect(Object.getPrototypeOf((data as { to: unknown }).to)).toBe(Array.prototype);
  });

  it("a key named __proto__ stays a field of the copy", () => {
    const { value } = inRealm(`return JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');`);
    const data = marshal(value) as Record<string, unknown>;
    expect(Object.hasOwn(data, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("shared (acyclic) references are copied twice, like JSON", () => {
    const { value } = inRealm(`const x = { a: 1 }; return { p: x, q: [x] };`);
    expect(marshal(value)).toEqual({ p: { a: 1 }, q: [{ a: 1 }] });
  });
});

describe("marshal refuses what is not plain data, and runs no program code", () => {
  it.each<[string, string, string]>([
    [
      "an own toJSON",
      `return { to: ["a@x.com"], toJSON() { ran++; return { to: ["eve@evil.com"] }; } };`,
      "args.toJSON",
    ],
    ["an own valueOf on a field", `return { n: { valueOf() { ran++; return 1; } } };`, "args.n.valueOf"],
    [
      "a toString on an element",
      `return { to: [{ toString() { ran++; return "eve@evil.com"; } }] };`,
      "args.to[0].toString",
    ],
    ["a function value", `return { to: () => { ran++; } };`, "args.to"],
    ["a getter", `return { get to() { ran++; return ["eve@evil.com"]; } };`, "args.to"],
    ["a setter", `return { set to(v) { ran++; } };`, "args.to"],
    [
      "a getter on an array index",
      `const a = ["a"]; Object.defineProperty(a, 0, { get() { ran++; return "eve"; }, enumerable: true }); return { to: a };`,
      "args.to[0]",
    ],
    [
      "a hidden property",
      `const o = {}; Object.defineProperty(o, "to", { value: ["a"], enumerable: false }); return o;`,
      "args.to",
    ],
    ["a symbol value", `return { to: Symbol("x") };`, "args.to"],
    ["a symbol key", `return { [Symbol("x")]: 1 };`, "args"],
    ["a bigint", `return { n: 10n };`, "args.n"],
    ["NaN", `return { n: NaN };`, "args.n"],
    ["Infinity", `return { n: -Infinity };`, "args.n"],
    ["undefined in a list", `return { to: ["a", undefined] };`, "args.to[1]"],
    ["a sparse array", `const a = ["a"]; a[2] = "c"; return { to: a };`, "args.to"],
    ["an array with an extra property", `const a = ["a"]; a.extra = 1; return { to: a };`, "args.to"],
    [
      "a proxy",
      `return new Proxy({ to: ["a"] }, { get() { ran++; return ["eve"]; }, ownKeys() { ran++; return ["to"]; }, getOwnPropertyDescriptor() { ran++; return { value: 1, enumerable: true, configurable: true }; }, getPrototypeOf() { ran++; return null; } });`,
      "args",
    ],
    [
      "a proxy as a prototype",
      `return Object.create(new Proxy({}, { getPrototypeOf() { ran++; return null; } }));`,
      "args",
    ],
    ["a proxy of an array", `return { to: new Proxy(["a"], { get() { ran++; return "eve"; } }) };`, "args.to"],
    ["a class instance", `class Mail { constructor() { this.to = ["a"]; } } return new Mail();`, "args"],
    ["a Date", `return { when: new Date(0) };`, "args.when"],
    ["a Map", `return { to: new Map([["a", 1]]) };`, "args.to"],
    ["a boxed string", `return { to: new String("a@x.com") };`, "args.to"],
    [
      "an array with another prototype",
      `const a = ["a"]; Object.setPrototypeOf(a, Object.prototype); return { to: a };`,
      "args.to",
    ],
    ["a cycle", `const o = { a: 1 }; o.self = o; return o;`, "args.self"],
    ["a cycle through a list", `const l = []; l.push(l); return { l };`, "args.l[0]"],
  ])("%s", (_name, source, path) => {
    const { value, ran } = inRealm(source);
    expect(refusal(value)).toMatchObject({ class: "grant_violation", reason: "not_plain_data", path });
    expect(ran()).toBe(0);
  });

  it("a function or undefined as the whole value", () => {
    expect(refusal(inRealm(`return () => 1;`).value)).toMatchObject({ reason: "not_plain_data", path: "args" });
    expect(refusal(undefined)).toMatchObject({ reason: "not_plain_data", path: "args" });
  });

  it("too deep, too many values, too many characters: resource_limit_exceeded", () => {
    const deep = inRealm(`let v = "x"; for (let i = 0; i < 100; i++) v = [v]; return { v };`).value;
    expect(refusal(deep)).toMatchObject({ class: "resource_limit_exceeded", reason: "too_large" });
    expect(() => marshal({ a: [1, 2, 3] }, { maxDepth: 1, maxNodes: 100, maxChars: 100 })).toThrow(
      /nested more than 1 levels deep/,
    );
    expect(() => marshal({ a: [1, 2, 3] }, { maxDepth: 9, maxNodes: 4, maxChars: 100 })).toThrow(/more than 4 values/);
    expect(() => marshal({ a: "x".repeat(10) }, { maxDepth: 9, maxNodes: 9, maxChars: 10 })).toThrow(
      /more than 10 characters/,
    );
    expect(marshal({ a: "x".repeat(9) }, { maxDepth: 9, maxNodes: 9, maxChars: 10 })).toEqual({ a: "x".repeat(9) });
  });

  // The sandbox reads a program's arguments with these same bounds (test/sandbox/marshal.test.ts).
  it("the default bounds: each passes at the cap and is refused one past it", () => {
    const { maxDepth, maxNodes, maxChars } = MARSHAL_LIMITS;
    const list = (n: number) => ({ list: Array.from({ length: n }, () => 1) }); // the object, the list and n values
    expect(marshal(list(maxNodes - 2))).toEqual(list(maxNodes - 2));
    expect(refusal(list(maxNodes - 1))).toMatchObject({ class: "resource_limit_exceeded", reason: "too_large" });
    const text = (n: number) => ({ t: "x".repeat(n) }); // the key counts one character
    expect(marshal(text(maxChars - 1))).toEqual(text(maxChars - 1));
    expect(refusal(text(maxChars))).toMatchObject({ class: "resource_limit_exceeded", reason: "too_large" });
    const nest = (n: number) => {
      let v: unknown = 1;
      for (let i = 0; i < n; i++) v = [v];
      return v;
    };
    expect(marshal(nest(maxDepth))).toEqual(nest(maxDepth));
    expect(refusal(nest(maxDepth + 1))).toMatchObject({ class: "resource_limit_exceeded", reason: "too_large" });
  });
});

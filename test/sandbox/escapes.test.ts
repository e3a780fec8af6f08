// Programs that try to leave the sandbox. They are run as written, never analyzed: the sandbox
// must hold by itself. Each asserts what was reported and that the host went on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newQuickJS } from "../../src/sandbox/quickjs.js";
import { program, run, texts } from "./helpers.js";

const mail = `{ to: ["bob@example.com"], subject: "s", body: "b" }`;

// Each attempt reaches a code-making constructor in an ordinary engine and calls what it made. In
// the sandbox every \`constructor\` chain ends at Object, whose result cannot be called.
const ATTEMPTS = `{
  objectConstructorConstructor: () => ({}).constructor.constructor("return 1")(),
  arrayConstructorConstructor: () => [].constructor.constructor("return 1")(),
  functionConstructor: () => (function () {}).constructor("return 1")(),
  arrowConstructor: () => (() => 1).constructor("return 1")(),
  asyncFunctionConstructor: () => (async function () {}).constructor("return 1")(),
  generatorFunctionConstructor: () => (function* () {}).constructor("return 1")(),
  asyncGeneratorFunctionConstructor: () => (async function* () {}).constructor("return 1")(),
  protoChain: () => (function () {}).__proto__.constructor("return 1")(),
  errorConstructor: () => { try { null.x; } catch (e) { return e.constructor.constructor("return 1")(); } },
  promiseConstructor: () => Promise.resolve().constructor.constructor("return 1")(),
  iteratorConstructor: () => [].values().constructor.constructor("return 1")(),
  regexpConstructor: () => /x/.constructor.constructor("return 1")(),
  symbolConstructor: () => Symbol.iterator.constructor.constructor("return 1")(),
  bigintConstructor: () => (0n).constructor.constructor("return 1")(),
  dateConstructor: () => new Date().constructor.constructor("return 1")(),
  directEval: () => eval("1"),
  indirectEval: () => (0, eval)("1"),
  globalFunction: () => Function("return 1")(),
  globalThisEval: () => globalThis.eval("1"),
  reflect: () => Reflect.construct(Function, ["return 1"])(),
  proxy: () => new Proxy({}, {}),
  getPrototypeOf: () => Object.getPrototypeOf(function () {}).constructor("return 1")(),
  descriptor: () => Object.getOwnPropertyDescriptor(Function.prototype, "constructor").value("return 1")(),
  lookupGetter: () => ({}).__lookupGetter__("__proto__"),
}`;

const tryAll = `const attempts = ${ATTEMPTS};
for (const name of Object.keys(attempts)) {
  let outcome;
  try { attempts[name](); outcome = "RAN"; } catch (e) { outcome = "blocked"; }
  console.log(name + " " + outcome);
}`;

let rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);
beforeAll(() => {
  process.on("unhandledRejection", onRejection);
});
afterAll(() => {
  process.off("unhandledRejection", onRejection);
});

describe("the way to code from strings", () => {
  it("is open in a bare QuickJS context (the attempts are real)", async () => {
    const quickjs = await newQuickJS(64 << 20);
    const vm = quickjs.module.newContext();
    const lines: string[] = [];
    const log = vm.newFunction("log", (h) => void lines.push(vm.getString(h)));
    const consoleObject = vm.newObject();
    vm.setProp(consoleObject, "log", log);
    vm.setProp(vm.global, "console", consoleObject);
    log.dispose();
    consoleObject.dispose();
    vm.unwrapResult(vm.evalCode(tryAll)).dispose();
    vm.dispose();
    expect(lines.filter((l) => l.endsWith("RAN")).length).toBeGreaterThanOrEqual(18);
  });

  it("is closed in the sandbox: every attempt throws", async () => {
    const r = await run(program(`// @ts-nocheck\n${tryAll}`));
    expect(r.outcome).toBe("returned");
    expect(texts(r).length).toBe(24);
    expect(texts(r).filter((l) => !l.endsWith("blocked"))).toEqual([]);
  });

  it("has no eval, Function, Proxy, Reflect, globalThis or host names", async () => {
    const names = [
      "eval",
      "Function",
      "Proxy",
      "Reflect",
      "globalThis",
      "WebAssembly",
      "process",
      "require",
      "__countersign_host",
      "WeakMap",
      "WeakRef",
      "SharedArrayBuffer",
      "Atomics",
    ];
    const r = await run(program(`// @ts-nocheck\nconsole.log(${names.map((n) => `typeof ${n}`).join(", ")});`));
    expect(texts(r)).toEqual([names.map(() => "undefined").join(" ")]);
  });
});

describe("changing shared objects", () => {
  it("cannot change intrinsics, console or the trusted functions", async () => {
    const r = await run(
      program(`// @ts-nocheck
const writes = {
  objectPrototype: () => { Object.prototype.polluted = 1; },
  arrayPush: () => { Array.prototype.push = () => 0; },
  promiseThen: () => { Promise.prototype.then = () => 0; },
  jsonParse: () => { JSON.parse = () => ({}); },
  consoleLog: () => { console.log = () => {}; },
  trustedFunction: () => { sendEmail.hijacked = true; },
  prepareStackTrace: () => { Error.prepareStackTrace = () => "leak"; },
  stackTraceLimit: () => { Error.stackTraceLimit = 0; },
  arrayValues: () => { Array.prototype.values = function* () {}; },
  toJSON: () => { Object.prototype.toJSON = () => "x"; },
  setPrototypeOf: () => { Object.setPrototypeOf(sendEmail, {}); },
};
for (const name of Object.keys(writes)) {
  let outcome;
  try { writes[name](); outcome = "CHANGED"; } catch { outcome = "blocked"; }
  console.log(name + " " + outcome);
}
console.log(typeof Error.prepareStackTrace, typeof Error.captureStackTrace, typeof ({}).polluted);`),
    );
    const lines = texts(r);
    expect(lines.slice(0, -1).filter((l) => !l.endsWith("blocked"))).toEqual([]);
    expect(lines.at(-1)).toBe("undefined undefined undefined");
  });

  it("cannot make the host read arguments through getters, toJSON or prototypes", async () => {
    const r = await run(
      program(`// @ts-nocheck
let ran = [];
const attempts = {
  getter: { to: ["bob@example.com"], get subject() { ran.push("getter"); return "s"; }, body: "b" },
  toJSON: { to: ["bob@example.com"], subject: "s", body: "b", toJSON() { ran.push("toJSON"); return {}; } },
  nestedGetter: { to: [{ get x() { ran.push("nested"); return "a"; } }], subject: "s", body: "b" },
  date: { to: ["bob@example.com"], subject: new Date(0), body: "b" },
  regexp: { to: ["bob@example.com"], subject: /s/, body: "b" },
  error: { to: ["bob@example.com"], subject: new Error("s"), body: "b" },
  promise: { to: ["bob@example.com"], subject: Promise.resolve("s"), body: "b" },
  nan: { to: ["bob@example.com"], subject: 0 / 0, body: "b" },
  infinity: { to: ["bob@example.com"], subject: 1 / 0, body: "b" },
  array: [1, 2],
  string: "bob@example.com",
};
const cyclic = { to: ["bob@example.com"], subject: "s", body: "b" };
cyclic.self = cyclic;
attempts.cycle = cyclic;
let deep = { to: [], subject: "s", body: "b" };
for (let i = 0; i < 100; i++) deep = { next: deep };
attempts.deep = deep;
for (const name of Object.keys(attempts)) {
  try { await sendEmail(attempts[name]); console.log(name + " SENT"); } catch (e) { console.log(name + " " + e.class); }
}
console.log("ran: " + ran.join(","));`),
    );
    expect(r.invoked).toEqual([]);
    const lines = texts(r);
    expect(lines.at(-1)).toBe("ran: ");
    expect(lines.slice(0, -1)).toHaveLength(13);
    expect(lines.slice(0, -1).filter((l) => !l.endsWith("grant_violation"))).toEqual([]);
    expect(r.refused).toBe(13);
    expect(r.calls[0]!.error!.message).toContain("subject is an accessor");
  });

  it("reads arrays and objects as JSON would, leaving undefined properties out (holes and undefined elements are refused: marshal.test.ts)", async () => {
    const r = await run(
      program(
        `// @ts-nocheck\nawait sendEmail({ to: ["a", "b"], subject: "s", body: "b", cc: undefined, n: -0, nested: { k: [null] } });`,
      ),
    );
    expect(r.invoked[0]!.args).toEqual({ to: ["a", "b"], subject: "s", body: "b", n: 0, nested: { k: [null] } });
    expect(Object.is(r.invoked[0]!.args.n, 0)).toBe(true);
  });

  it("keeps a property named __proto__ as data on the host", async () => {
    const r = await run(
      program(
        `// @ts-nocheck\nawait sendEmail({ to: ["a"], subject: "s", body: "b", ["__proto__"]: { polluted: true } });`,
      ),
    );
    const args = r.invoked[0]!.args;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.keys(args)).toContain("__proto__");
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("has no Symbol (no well-known symbol is in reach), and conversions never make the host run code", async () => {
    const r = await run(
      program(`// @ts-nocheck
console.log(typeof Symbol);
const ran = [];
const tricky = { toString() { ran.push("toString"); return "x"; }, valueOf() { ran.push("valueOf"); return 1; } };
console.log(tricky);
try { await sendEmail({ to: ["bob@example.com"], subject: tricky, body: "b" }); } catch (e) { console.log(e.class); }
console.log("ran: " + ran.join(","));`),
    );
    expect(texts(r)).toEqual(["undefined", "[object]", "grant_violation", "ran: "]);
    expect(r.invoked).toEqual([]);
  });
});

describe("resource limits", () => {
  it("stops an infinite loop, even inside try/catch, on the CPU budget", async () => {
    const r = await run(
      program(`try { while (true) {} } catch { console.log("caught"); }\nawait sendEmail(${mail});`),
      { limits: { cpuMs: 150 } },
    );
    expect(r).toMatchObject({
      outcome: "limit",
      limit: { class: "resource_limit_exceeded", details: { limit: "cpu" } },
    });
    expect(texts(r)).toEqual([]);
    expect(r.invoked).toEqual([]);
  });

  it("stops a loop of microtasks and a loop left running after main", async () => {
    const spin = await run(program(`for (;;) await null;`), { limits: { cpuMs: 150 } });
    expect(spin.limit?.details).toMatchObject({ limit: "cpu" });
    const detached = await run(
      program(`void (async () => { await null; for (;;) {} })();\nconsole.log("main done");`),
      { limits: { cpuMs: 150 } },
    );
    expect(detached).toMatchObject({ outcome: "limit", limit: { details: { limit: "cpu" } } });
    expect(texts(detached)).toEqual(["main done"]);
  });

  it("stops runaway recursion as a stack limit", async () => {
    const r = await run(program(`function f(n: number): number { return f(n + 1) + 1; }\nf(0);`));
    expect(r).toMatchObject({ outcome: "limit", limit: { details: { limit: "stack" } } });
  });

  it("lets a program catch its own stack overflow and go on", async () => {
    const r = await run(
      program(
        `function f(n: number): number { return f(n + 1) + 1; }\ntry { f(0); } catch { console.log("caught"); }\nawait sendEmail(${mail});`,
      ),
    );
    expect(r.outcome).toBe("returned");
    expect(texts(r)).toEqual(["caught"]);
    expect(r.invoked).toHaveLength(1);
  });

  it("survives deep nesting inside built-ins (JSON.parse, callbacks)", async () => {
    const json = await run(program(`JSON.parse("[".repeat(1000000));`));
    expect(json).toMatchObject({ outcome: "limit", limit: { details: { limit: "stack" } } });
    const callbacks = await run(
      program(`function f(n: number): number[] { return [n].map((x) => f(x + 1)).flat(); }\nf(0);`),
    );
    expect(callbacks).toMatchObject({ outcome: "limit", limit: { details: { limit: "stack" } } });
  });

  it("stops a program that awaits a promise nothing can settle, at once", async () => {
    // "stalled", not "wall": it did not wait for the (default, 60 s) deadline; no duration is measured
    // (starting a sandbox thread takes seconds on a loaded machine).
    const r = await run(program(`await new Promise(() => {});\nawait sendEmail(${mail});`));
    expect(r).toMatchObject({ outcome: "limit", limit: { details: { limit: "stalled" } } });
    expect(r.invoked).toEqual([]);
  });

  it("stops waiting for a trusted call at the wall-clock deadline", async () => {
    // The answer comes only when the test gives it, after the run: only the deadline can end the run.
    let answer = (): void => undefined;
    const r = await run(program(`await sendEmail(${mail});\nconsole.log("after");`), {
      limits: { wallMs: 200 },
      answer: () => new Promise((resolve) => (answer = () => resolve({}))),
    });
    expect(r).toMatchObject({ outcome: "limit", limit: { details: { limit: "wall" } } });
    expect(r.calls).toEqual([{ op: "email.send_email", status: "pending" }]);
    answer(); // the late answer lands on a closed run
    await new Promise((resolve) => setImmediate(resolve));
  });

  it("stops at the output cap", async () => {
    const r = await run(program(`for (let i = 0; ; i++) console.log("line " + i);`), { limits: { outputBytes: 1000 } });
    expect(r).toMatchObject({ outcome: "limit", limit: { details: { limit: "output" } } });
    expect(r.logs.reduce((n, l) => n + l.text.length + 1, 0)).toBeLessThanOrEqual(1000);
  });

  it("stops at the call cap, and no call past it goes out", async () => {
    const r = await run(program(`for (let i = 0; i < 100; i++) await sendEmail(${mail});`), {
      limits: { maxCalls: 5 },
    });
    expect(r).toMatchObject({ outcome: "limit", limit: { details: { limit: "calls" } } });
    expect(r.invoked).toHaveLength(5);
  });

  it("stops a program that makes calls without awaiting them at the call cap, and no call past it goes out", async () => {
    const r = await run(program(`for (;;) void sendEmail(${mail});`), { limits: { maxCalls: 5 } });
    expect(r).toMatchObject({ outcome: "limit", limit: { details: { limit: "calls" } } });
    expect(r.invoked).toHaveLength(0); // the calls were queued in the turn the cap stopped
    expect(r.calls.length).toBeGreaterThan(5);
    expect(r.calls.every((c) => c.status === "failed" && c.error?.class === "resource_limit_exceeded")).toBe(true);
  });
});

describe("unhandled rejections", () => {
  it("stay inside the program", async () => {
    rejections = [];
    const r = await run(
      program(`void Promise.reject(new Error("ignored"));
void sendEmail(${mail});
void (async () => { throw new Error("detached"); })();
console.log("done");`),
      {
        answer: async () => {
          throw new Error("refused by the host");
        },
      },
    );
    expect(r.outcome).toBe("returned");
    expect(texts(r)).toEqual(["done"]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(rejections).toEqual([]);
  });
});

describe("after all of the above", () => {
  it("the host still runs programs", async () => {
    const r = await run(program(`await sendEmail(${mail});\nconsole.log("fine");`));
    expect(r).toMatchObject({ outcome: "returned", calls: [{ status: "done" }] });
    expect(texts(r)).toEqual(["fine"]);
  });
});

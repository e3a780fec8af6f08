import { createContext, Script } from "node:vm";
import { describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/create-analyzer.js";
import { sandboxLib } from "../../src/analyze/compile/sandbox-lib.js";
import { GLOBALS, INTRINSICS } from "../../src/environment/environment.js";
import { hardeningScript, runtimeAllowlist } from "../../src/environment/harden.js";
import { exactMembers, mutatingMembers, namespaces } from "../../src/environment/lookup.js";
import { checkProgram } from "../analyze/soundness/check-program.js";
import { compileProgram, hardenedContext } from "../analyze/support/concrete-runner.js";
import { testManifests } from "../analyze/support/test-manifests.js";

const set = testManifests();

/** A fresh realm hardened to the environment, and a way to evaluate code in it. */
function hardenedRealm(): (code: string) => unknown {
  const context = hardenedContext();
  return (code) => new Script(code).runInContext(context);
}

function probe(body: string): string {
  return `import { program } from "countersign";
import { sendEmail } from "trusted/email";
export default program({
  rationale: "probe",
  guarantees: [],
  async main() {
    ${body}
  },
});
`;
}

/** Runs a program in the concrete runner; its one trusted call sends what it saw as the subject. */
function seenByProgram(body: string): string {
  const trace = compileProgram(probe(body), set).run();
  expect(trace.outcome, trace.error).toBe("returned");
  return trace.calls[0]!.args.subject as string;
}

describe("the environment as data", () => {
  it("names only members the real built-ins have", () => {
    const wellKnown = (name: string): PropertyKey =>
      name.startsWith("@@") ? (Symbol as unknown as Record<string, symbol>)[name.slice(2)]! : name;
    for (const g of GLOBALS) {
      if (g.typesOnly === true || g.name === "console") continue;
      const value = (globalThis as Record<string, unknown>)[g.name] as Record<PropertyKey, unknown> | undefined;
      expect(g.name in globalThis, g.name).toBe(true);
      for (const m of g.statics?.members ?? [])
        expect(wellKnown(m.name) in Object(value), `${g.name}.${m.name}`).toBe(true);
      for (const m of g.prototype?.members ?? [])
        expect(wellKnown(m.name) in Object(value!.prototype), `${g.name}.prototype.${m.name}`).toBe(true);
    }
  });

  it("generates the analyzer's lib: every declared member is in it, no internal one is", () => {
    const members = [...GLOBALS.flatMap((g) => [g.statics, g.prototype]), ...INTRINSICS].flatMap(
      (shape) => shape?.members ?? [],
    );
    const declared = new Set(members.filter((m) => m.declaration !== undefined).map((m) => m.name));
    for (const m of members) {
      if (m.declaration !== undefined) expect(sandboxLib).toContain(m.declaration);
      else if (!declared.has(m.name)) expect(sandboxLib, m.name).not.toMatch(new RegExp(`^\\s+${m.name}[(<:?]`, "m"));
    }
    for (const g of GLOBALS) if (g.declaration !== "") expect(sandboxLib).toContain(g.declaration);
  });

  it("tells the analyzer which members it computes exactly, which mutate, and which globals are namespaces", () => {
    expect([...exactMembers("Math", "statics")].sort()).toEqual([
      "abs",
      "ceil",
      "floor",
      "max",
      "min",
      "round",
      "trunc",
    ]);
    expect(exactMembers("String", "prototype").has("toUpperCase")).toBe(true);
    expect(exactMembers("Array", "prototype").has("map")).toBe(false);
    expect([...mutatingMembers("Array")].sort()).toEqual([
      "pop",
      "push",
      "reverse",
      "shift",
      "sort",
      "splice",
      "unshift",
    ]);
    expect([...namespaces()].sort()).toEqual([
      "Array",
      "Date",
      "JSON",
      "Math",
      "Number",
      "Object",
      "Promise",
      "String",
      "console",
    ]);
  });

  it("leaves types-only globals (Symbol) out of the run-time allowlist", () => {
    expect(runtimeAllowlist().globals).not.toContain("Symbol");
    expect(runtimeAllowlist().globals).toContain("JSON");
  });
});

describe("a realm hardened to the environment", () => {
  it("has exactly the listed globals", () => {
    // Reflect is gone, so the realm's own names are read from outside.
    const names = new Script("this").runInContext(hardenedContext()) as object;
    expect(Reflect.ownKeys(names).map(String).sort()).toEqual([...runtimeAllowlist().globals].sort());
  });

  it("is never left half-built: a listed global missing, or a key that cannot go, stops the hardening", () => {
    const realm = (setUp: string) => {
      const context = createContext({});
      new Script(setUp).runInContext(context);
      return () => new Script(hardeningScript()).runInContext(context);
    };
    expect(realm("delete globalThis.console;")).toThrow("the environment cannot find console");
    expect(realm(`Object.defineProperty(globalThis, "leak", { value: {}, configurable: false });`)).toThrow(
      "the environment cannot remove leak",
    );
    expect(
      realm(`Object.defineProperty(Array.prototype, "leak", { get() { return 1; }, configurable: false });`),
    ).toThrow("the environment cannot remove leak");
    // A fixed primitive stays, as the engine's own constants do.
    expect(realm(`Object.defineProperty(globalThis, "answer", { value: 42, configurable: false });`)).not.toThrow();
  });

  it("removes every unlisted built-in, freezes the rest, and keeps the language working", () => {
    const run = hardenedRealm();
    const gone = [
      "Object.assign",
      "Object.getOwnPropertyDescriptors",
      "Object.defineProperty",
      "Object.getPrototypeOf",
      "[].fill",
      "(() => 1).call",
      "(() => 1).apply",
      "(() => 1).bind",
      "({}).__proto__",
      "Math.sin",
      "String.raw",
      "Promise.race",
      "JSON.rawJSON",
    ];
    for (const expression of gone) expect(run(`typeof ${expression}`), expression).toBe("undefined");
    for (const name of [
      "Reflect",
      "Proxy",
      "eval",
      "Function",
      "globalThis",
      "Symbol",
      "WebAssembly",
      "WeakMap",
      "RegExp",
      "Intl",
      "escape",
    ])
      expect(run(`typeof ${name}`), name).toBe("undefined");
    // Map and Set are kept, frozen, with only their listed members; their iterators step on.
    expect(
      run(
        "const m = new Map([['a', 1]]); m.set('b', 2); const s = new Set([1, 1, 2]); [...m.keys()].join() + [...s].length + m.get('b') + s.has(2) + [...m.entries()].length + typeof Map.groupBy + typeof Set.prototype.union",
      ),
    ).toBe("a,b22true2undefinedundefined");
    expect(() => run(`"use strict"; Map.prototype.get = () => 1;`)).toThrow(/read only|not extensible/);
    // The Function constructor is out of reach through every constructor chain.
    expect(
      run(
        "(() => 1).constructor === Object && (async () => 1).constructor === Object && Object.constructor === Object",
      ),
    ).toBe(true);
    expect(() => run(`"use strict"; Array.prototype.join = () => "x";`)).toThrow(/read only|not extensible/);
    expect(() => run(`"use strict"; Math.floor = () => 1;`)).toThrow(/read only/);
    expect(
      run(
        "[3, 1, 2].sort().join() + `${[1, 2]}` + 'a-b'.replace(/-/g, '+') + JSON.stringify({ d: new Date(0) }) + [...'ab'].length",
      ),
    ).toBe('1,2,31,2a+b{"d":"1970-01-01T00:00:00.000Z"}2');
  });
});

describe("the concrete runner builds its realm from the environment", () => {
  it("a program reaching unlisted built-ins through casts finds undefined there, and the analyzer refuses the casts", () => {
    const body = `const O = Object as unknown as Record<string, unknown>;
    const A = [] as unknown as Record<string, unknown>;
    const F = sendEmail as unknown as Record<string, unknown>;
    const seen = [typeof O.assign, typeof O.getOwnPropertyDescriptors, typeof O.defineProperty, typeof A.fill, typeof F.call, typeof F.bind, typeof (O.prototype as Record<string, unknown>).__defineGetter__];
    await sendEmail({ to: ["a@x.com"], subject: seen.join(","), body: "b" });`;
    expect(seenByProgram(body)).toBe(Array(7).fill("undefined").join(","));
    const analyzer = createAnalyzer(set);
    const facts = analyzer.analyze(probe(body));
    analyzer.dispose();
    expect(facts.ok).toBe(false);
    const refused = facts.diagnostics
      .filter((d) => d.code === "refused_construct")
      .map((d) => `${d.line}:${d.column} ${d.construct}`);
    expect(refused).toEqual(
      expect.arrayContaining([
        "7:15 a double cast",
        "8:15 a double cast",
        "9:15 a double cast",
        "9:15 trusted function sendEmail used as a value",
      ]),
    );
  });

  it("a prototype write through a cast fails: the intrinsics are frozen", () => {
    const subject = seenByProgram(`let result = "written";
    try {
      (Array as unknown as { prototype: Record<string, unknown> }).prototype.includes = () => true;
    } catch (e) {
      result = "refused";
    }
    await sendEmail({ to: ["a@x.com"], subject: result + ["x"].includes("y"), body: "b" });`);
    expect(subject).toBe("refusedfalse");
  });

  it("host functions are out of reach: the modules are functions of the realm", () => {
    const subject = seenByProgram(`const S = sendEmail as unknown as { constructor: { constructor: unknown } };
    await sendEmail({ to: ["a@x.com"], subject: String(S.constructor.constructor === Object), body: "b" });`);
    expect(subject).toBe("true");
  });
});

describe("the analyzer agrees with the frozen realm", () => {
  // A write that would shadow a member of a frozen prototype throws there (the "override
  // mistake"). In a helper nobody awaits, the throw only rejects its promise and main goes on:
  // the facts must allow for the helper stopping at the write.
  const shadowing: [string, string][] = [
    // (Defining toString or valueOf is refused outright: the hostile corpus has those.)
    ["message on an error made without one", `const e = new Error();\n      e.message = "changed";`],
  ];
  for (const [name, write] of shadowing) {
    it(`${name}: throws in the realm, and the facts cover the run that goes on without the call`, () => {
      const analyzer = createAnalyzer(set);
      const body = `const helper = async (): Promise<void> => {\n      ${write}\n      await sendEmail({ to: ["a@x.com"], subject: "s", body: "b" });\n    };\n    helper();`;
      const { facts, traces, problems } = checkProgram(analyzer, set, probe(body), [["a@x.com"]]);
      analyzer.dispose();
      expect(traces[0]!.outcome).toBe("returned");
      expect(traces[0]!.calls).toEqual([]);
      expect(facts.effects.map((e) => e.count.min)).toEqual([0]);
      expect(problems).toEqual([]);
    });
  }
});

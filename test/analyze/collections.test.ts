import { afterAll, describe, expect, it } from "vitest";
import type { Effect } from "../../src/model/index.js";
import { programOf, sharedAnalyzer } from "./harness.js";

/** How Maps, Sets and computed indexes are abstracted: values, counts and what they depend on. */
const analyzer = sharedAnalyzer();
afterAll(() => analyzer.dispose());

const send = (to: string): string => `await sendEmail({ to: [${to}], subject: "s", body: "b" });`;
function sends(body: string, top = ""): Effect[] {
  const facts = analyzer.analyze(programOf({ main: body, top }));
  expect(facts.diagnostics).toEqual([]);
  return facts.effects.filter((e) => e.op === "email.send_email");
}

describe("Map and Set", () => {
  it("a Set of known strings: one call per distinct element, each element a known value", () => {
    const [e] = sends(`const s = new Set(["a@x.com", "b@x.com", "a@x.com"]);\nfor (const x of s) ${send("x")}`);
    expect(e!.count).toEqual({ min: 2, max: 2 });
    expect(e!.args.to).toEqual({
      kind: "array",
      element: { kind: "const", values: ["a@x.com", "b@x.com"] },
      length: { min: 1, max: 1 },
    });
  });

  it("a Map's entries keep keys and values apart when destructured", () => {
    const [e] = sends(
      `const m = new Map([["a@x.com", 1], ["b@x.com", 2]]);\nm.set("c@x.com", 3);\nfor (const [k, v] of m) if (v > 0) ${send("k")}`,
    );
    expect(e!.args.to).toMatchObject({
      kind: "array",
      element: { kind: "const", values: ["a@x.com", "b@x.com", "c@x.com"] },
    });
    expect(e!.count.max).toBe(3);
  });

  it("get joins every value with undefined; size and has are exact where the contents are", () => {
    const [a, b] = sends(
      `const m = new Map<string, string>();\nm.set("k", "a@x.com");\n${send(`m.get("other") ?? "b@x.com"`)}\nif (m.size === 1 && new Set([1, 2, 2]).size === 2) ${send(`"c@x.com"`)}`,
    );
    // undefined has no constant of its own: the element is unknown, made of trusted parts only
    expect(a!.sources!.to!.every((p) => !p.untrusted)).toBe(true);
    expect(b!.count).toEqual({ min: 1, max: 1 });
  });

  it("forEach runs its callback at most once per entry, unless the callback can reach the collection", () => {
    const [bounded] = sends(
      `const s = new Set(["a", "b"]);\ns.forEach((x) => { void sendEmail({ to: [x + "@x.com"], subject: "s", body: "b" }); });`,
    );
    expect(bounded!.count.max).toBe(2);
    // Its third argument is the collection: adding to it there makes forEach go on.
    const [unbounded] = sends(
      `new Set(["a", "b"]).forEach((...args: (string | Set<string>)[]) => { const owner = args[2]; if (typeof owner === "object" && owner.size < 9) owner.add("x"); void sendEmail({ to: ["a@x.com"], subject: "s", body: "b" }); });`,
    );
    expect(unbounded!.count.max).toBeNull();
  });

  it("a for...of over keys() whose body adds to the Map may run any number of times", () => {
    const [e] = sends(
      `const m = new Map([["a", 1]]);\nfor (const k of m.keys()) {\n  if (m.size < 5) m.set(k + "1", 1);\n  ${send(`"a@x.com"`)}\n}`,
    );
    expect(e!.count.max).toBeNull();
  });

  it("an iterator kept in a variable may be spent: it promises no call", () => {
    const [e] = sends(
      `const s = new Set(["a@x.com"]);\nconst values = s.values();\nfor (const x of values) ${send("x")}`,
    );
    expect(e!.count.min).toBe(0);
    expect(e!.count.max).toBe(1);
  });

  it("a Map built in a loop is still read soundly after it", () => {
    const [e] = sends(
      `const r = String(await readFile({ path: "/a" }));\nconst m = new Map<string, string>();\nfor (const p of r.split(",")) m.set(p, p);\nfor (const [k] of m) ${send("k")}`,
    );
    expect(e!.count.max).toBeNull();
    expect(e!.sources!.to!.some((p) => p.untrusted)).toBe(true);
  });
});

describe("computed indexes", () => {
  it("a known index is exact; an unknown one joins every element with undefined", () => {
    const [a, b] = sends(
      `const xs = ["a@x.com", "b@x.com", "c@x.com"];\n${send(`xs[xs.length - 1]!`)}\nconst i = xs.indexOf(String(await readFile({ path: "/a" })));\n${send(`xs[i] ?? "d@x.com"`)}`,
    );
    expect(a!.args.to).toEqual({ kind: "const", values: [["c@x.com"]] });
    expect(b!.influencedBy!.some((p) => p.untrusted)).toBe(true);
  });

  it("an array callback's index, Math.floor and a Set's size are numbers", () => {
    const [e] = sends(
      `const xs = ["a@x.com", "b@x.com"];\nconst pairs = xs.map((x, i) => xs[(i + 1) % xs.length] ?? x);\nconst mid = xs[Math.floor(xs.length / 2)] ?? "c@x.com";\nconst last = xs[new Set(xs).size - 1] ?? "c@x.com";\n${send(`pairs[0] ?? mid, last`)}`,
    );
    expect(e!.count).toEqual({ min: 1, max: 1 });
  });
});

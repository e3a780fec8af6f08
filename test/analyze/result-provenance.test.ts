import { afterAll, describe, expect, it } from "vitest";
import type { ResultPart } from "../../src/model/index.js";
import { programOf, sharedAnalyzer } from "./harness.js";

const analyzer = sharedAnalyzer();
afterAll(() => analyzer.dispose());

function partsOf(main: string): ResultPart[] {
  const facts = analyzer.analyze(programOf({ main, top: `import type { Json } from "countersign";\n` }));
  expect(facts.diagnostics).toEqual([]);
  return facts.result!.parts;
}

const part = (parts: ResultPart[], path: string): ResultPart => {
  const found = parts.find((p) => p.path === path);
  if (found === undefined) throw new Error(`no part ${path} in ${JSON.stringify(parts)}`);
  return found;
};

const READ = `const d = await getDraft({ id: "d-1" });`;

describe("where what main returns comes from", () => {
  it("a main that returns nothing, or a constant, returns the program's own data", () => {
    expect(partsOf(`await sendEmail({ to: ["a@x.com"], subject: "s", body: "b" });`)).toEqual([
      { path: "$", from: [], untrusted: false },
    ]);
    expect(partsOf(`return { ok: true, n: 3 };`)).toEqual([
      { path: "$.ok", from: [], untrusted: false },
      { path: "$.n", from: [], untrusted: false },
    ]);
  });

  it("a value read from a draft is untrusted and names its op", () => {
    expect(partsOf(`${READ}\n return String(d.body);`)).toEqual([
      { path: "$", from: ["email.get_draft"], untrusted: true },
    ]);
  });

  it("a mixed object says which fields came from the read", () => {
    const parts = partsOf(
      `${READ}\n return { summary: String(d.subject), count: 2, items: [String(d.body), "x"], "a b": "c" };`,
    );
    expect(part(parts, "$.summary")).toEqual({ path: "$.summary", from: ["email.get_draft"], untrusted: true });
    expect(part(parts, "$.count")).toEqual({ path: "$.count", from: [], untrusted: false });
    expect(part(parts, "$.items[*]").untrusted).toBe(true);
    expect(part(parts, '$["a b"]')).toEqual({ path: '$["a b"]', from: [], untrusted: false });
  });

  it("what a call answered names its op beside the program's own parts", () => {
    const parts = partsOf(
      `const sent = await sendEmail({ to: ["a@x.com"], subject: "s", body: "b" });\n return { sent: sent as Json, note: "done" };`,
    );
    expect(part(parts, "$.sent").from).toEqual(["email.send_email"]);
    expect(part(parts, "$.note")).toEqual({ path: "$.note", from: [], untrusted: false });
  });

  it("a constant chosen by branching on untrusted data counts as untrusted", () => {
    const parts = partsOf(
      `${READ}\n if (String(d.subject) === "yes") return { answer: "approve" };\n return { answer: "deny" };`,
    );
    expect(part(parts, "$.answer")).toEqual({ path: "$.answer", from: [], untrusted: true });
  });

  it("parts deeper than the bound are described as a whole", () => {
    const parts = partsOf(`${READ}\n return { a: { b: { c: { d: { e: String(d.body), f: 1 } } } } };`);
    expect(parts).toEqual([{ path: "$.a.b.c.d", from: ["email.get_draft"], untrusted: true }]);
  });
});

describe("laundering untrusted data into a trusted part", () => {
  const laundered: [string, string][] = [
    ["a Map", `const m = new Map<string, string>(); m.set("k", String(d.body)); return { clean: m.get("k") ?? "" };`],
    ["a Set", `const s = new Set([String(d.body)]); return { clean: [...s][0] ?? "" };`],
    ["array methods", `return { clean: [d.body].map((x) => String(x).toUpperCase()).join("") };`],
    ["a closure", `const f = () => String(d.body); return { clean: f() };`],
    ["JSON round trip", `return { clean: (JSON.parse(JSON.stringify({ v: d.body })) as { v: Json }).v };`],
    ["a template string", "return { clean: `ok ${String(d.body)}` };"],
    [
      "a thrown and caught value",
      `let clean = "x"; try { throw new Error(String(d.body)); } catch (e) { clean = (e as Error).message; } return { clean };`,
    ],
    [
      "character codes",
      `const t = String(d.body); let out = ""; for (let i = 0; i < t.length; i++) out += String.fromCharCode(t.charCodeAt(i)); return { clean: out };`,
    ],
    [
      "a lookup table",
      `const table: Record<string, string> = { a: "A", b: "B" }; return { clean: (String(d.body) === "a" ? table.a : table.b) ?? "" };`,
    ],
    ["an object field written later", `const o = { clean: "" }; o.clean = String(d.body); return o;`],
  ];
  for (const [how, body] of laundered) {
    it(`through ${how} stays untrusted`, () => {
      const parts = partsOf(`${READ}\n ${body}`);
      for (const p of parts) expect(p.untrusted, JSON.stringify(parts)).toBe(true);
    });
  }
});

describe("what main may return", () => {
  it("a main returning something that is not JSON data is refused by the type check", () => {
    for (const body of [`return () => 1;`, `return new Map<string, string>();`, `return { at: undefined };`]) {
      const facts = analyzer.analyze(programOf({ main: body }));
      expect(facts.ok).toBe(false);
      expect(facts.diagnostics.map((d) => d.code)).toContain("type_error");
      expect(facts.result).toBeUndefined();
    }
  });
});

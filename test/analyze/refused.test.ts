import { afterAll, describe, expect, it } from "vitest";
import { PRELUDE, programOf, sharedAnalyzer } from "./harness.js";

const analyzer = sharedAnalyzer();
afterAll(() => analyzer.dispose());

/** 1-based line and column of the first occurrence of `needle`. */
function siteOf(source: string, needle: string): { line: number; column: number } {
  const index = source.indexOf(needle);
  if (index < 0) throw new Error(`not found: ${needle}`);
  const before = source.slice(0, index).split("\n");
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

interface Refusal {
  name: string;
  source: string;
  at: string; // the text the diagnostic must point at
  code: string;
  construct?: string;
  message: RegExp;
}

const main = (body: string, top = ""): string => programOf({ top, main: body });

const refusals: Refusal[] = [
  {
    name: "eval",
    source: main(`const x = eval("1");`),
    at: "eval(",
    code: "refused_construct",
    construct: "eval",
    message: /eval is refused: it runs code from a string/,
  },
  {
    name: "Function",
    source: main(`const f = Function("return 1");`),
    at: "Function(",
    code: "refused_construct",
    construct: "Function",
    message: /runs code from a string/,
  },
  {
    name: "globalThis",
    source: main(`const g = globalThis;`),
    at: "globalThis;",
    code: "refused_construct",
    construct: "globalThis",
    message: /reaches the global object/,
  },
  {
    name: "a unicode-escaped eval",
    source: main(`const x = \\u0065val("1");`),
    at: "\\u0065val",
    code: "refused_construct",
    construct: "eval",
    message: /runs code from a string/,
  },
  {
    name: "import()",
    source: main(`const m = await import("node:fs");`),
    at: "import(",
    code: "refused_construct",
    construct: "import()",
    message: /loads modules at run time/,
  },
  {
    name: "require",
    source: main(`const m = require("fs");`),
    at: "require(",
    code: "refused_construct",
    construct: "require",
    message: /loads modules/,
  },
  {
    name: "a trusted function stored in a variable",
    source: main(`const send = sendEmail;\nawait send({ to: ["a@x.com"], subject: "s", body: "b" });`),
    at: "sendEmail;",
    code: "refused_construct",
    construct: "trusted function sendEmail used as a value",
    message: /call it directly/,
  },
  {
    name: "a trusted function inside an object",
    source: main(`const box = { f: sendEmail };`),
    at: "sendEmail }",
    code: "refused_construct",
    construct: "trusted function sendEmail used as a value",
    message: /hides calls/,
  },
  {
    name: "a trusted function passed as a callback",
    source: main(`["a"].map(readFile);`),
    at: "readFile)",
    code: "refused_construct",
    construct: "trusted function readFile used as a value",
    message: /hides calls/,
  },
  {
    name: "constructor access",
    source: main(`const c = [].constructor;`),
    at: "constructor;",
    code: "refused_construct",
    construct: "constructor access",
    message: /Function constructor/,
  },
  {
    name: "__proto__ by a string key",
    source: main(`const o: Record<string, number> = {};\nconst p = o["__proto__"];`),
    at: `"__proto__"`,
    code: "refused_construct",
    construct: "__proto__ access",
    message: /prototypes/,
  },
  {
    name: "computed access with a string key",
    source: main(`const o: Record<string, number> = {};\nconst k = "a" + "b";\nconst v = o[k];`),
    at: "k];",
    code: "refused_construct",
    construct: "computed member access",
    message: /use a literal key or a number/,
  },
  {
    name: "a getter",
    source: main(`const o = { get x() { return 1; } };`),
    at: "get x",
    code: "refused_construct",
    construct: "getter",
    message: /runs code on a property read/,
  },
  {
    name: "a class",
    source: main(`class A {}`),
    at: "class A",
    code: "refused_construct",
    construct: "class",
    message: /classes are not supported/,
  },
  {
    name: "delete",
    source: main(`const o: { a?: number } = { a: 1 };\ndelete o.a;`),
    at: "delete",
    code: "refused_construct",
    construct: "delete",
    message: /changes objects' shape/,
  },
  {
    name: "a generator",
    source: main(`function* g() { yield 1; }`),
    at: "*",
    code: "refused_construct",
    construct: "generator",
    message: /generators are not supported/,
  },
  {
    name: "a label",
    source: main(`outer: for (const a of [1]) { break outer; }`),
    at: "outer:",
    code: "refused_construct",
    construct: "label",
    message: /labels are not supported/,
  },
  {
    name: "a tagged template",
    source: main("const t = String.raw`x`;"),
    at: "String.raw`x`",
    code: "refused_construct",
    construct: "tagged template",
    message: /calls a function invisibly/,
  },
  {
    name: "this",
    source: main(`const t = this;`),
    at: "this;",
    code: "refused_construct",
    construct: "this",
    message: /pass values explicitly/,
  },
  {
    name: "any",
    source: main(`const x: any = 1;`),
    at: "any",
    code: "refused_construct",
    construct: "any",
    message: /turns off type checking/,
  },
  {
    name: "arguments",
    source: programOf({ top: `function f(): number { return arguments.length; }`, main: `f();` }),
    at: "arguments",
    code: "refused_construct",
    construct: "arguments",
    message: /aliases parameters/,
  },
  {
    name: "a top-level statement",
    source: programOf({ top: `console.log("hi");`, main: `` }),
    at: "console.log",
    code: "refused_construct",
    construct: "top-level statement",
    message: /put the work in main/,
  },
  {
    name: "a contract helper used in main",
    source: main(`const g = noWrites();`),
    at: "noWrites()",
    code: "refused_construct",
    construct: "noWrites used here",
    message: /only as an element of `guarantees`/,
  },
  {
    name: "a computed property name",
    source: main(`const k = "a";\nconst o = { [k]: 1 };`),
    at: "[k]",
    code: "refused_construct",
    construct: "computed property name",
    message: /write the name/,
  },
  {
    name: "var",
    source: main(`var x = 1;`),
    at: "var x",
    code: "refused_construct",
    construct: "var / using",
    message: /use const or let/,
  },
];

const importRefusals: Refusal[] = [
  {
    name: "node:fs",
    source: `import { readFileSync } from "node:fs";\n${programOf({ main: "" })}`,
    at: `"node:fs"`,
    code: "refused_import",
    construct: `import "node:fs"`,
    message: /may import only "countersign"/,
  },
  {
    name: "a relative path",
    source: `import { x } from "./x.js";\n${programOf({ main: "" })}`,
    at: `"./x.js"`,
    code: "refused_import",
    construct: `import "./x.js"`,
    message: /refused/,
  },
  {
    name: "a namespace import of a trusted module",
    source: `import * as email from "trusted/email";\n${programOf({ main: "" })}`,
    at: "* as email",
    code: "refused_import",
    construct: "namespace import",
    message: /import each function by name/,
  },
  {
    name: "a default import",
    source: `import email from "trusted/email";\n${programOf({ main: "" })}`,
    at: "email from",
    code: "refused_import",
    construct: "default import",
    message: /use a named import/,
  },
];

describe("refused constructs", () => {
  for (const r of [...refusals, ...importRefusals]) {
    it(`refuses ${r.name} with its line and column`, () => {
      const facts = analyzer.analyze(r.source);
      expect(facts.ok).toBe(false);
      expect(facts.effects).toEqual([]);
      const found = facts.diagnostics.find(
        (d) => d.code === r.code && (r.construct === undefined || d.construct === r.construct),
      );
      expect(found, JSON.stringify(facts.diagnostics)).toBeDefined();
      expect({ line: found!.line, column: found!.column }).toEqual(siteOf(r.source, r.at));
      expect(found!.message).toMatch(r.message);
    });
  }
});

describe("program form", () => {
  it("reports type errors in the compiler's words with line and column", () => {
    const source = main(`const n: number = "x";`);
    const facts = analyzer.analyze(source);
    expect(facts.ok).toBe(false);
    expect(facts.diagnostics).toEqual([
      {
        severity: "error",
        code: "type_error",
        message: "Type 'string' is not assignable to type 'number'. (TS2322)",
        ...siteOf(source, "n: number"),
      },
    ]);
  });

  it("types a trusted call's result by its manifest: a misspelled field is a type error at its line", () => {
    const source = main(
      `const draft = await getDraft({ id: "d1" });\nawait sendEmail({ to: ["a@x.com"], subject: draft.subjct, body: draft.body });`,
    );
    const facts = analyzer.analyze(source);
    expect(facts.ok).toBe(false);
    expect(facts.diagnostics).toEqual([
      expect.objectContaining({
        code: "type_error",
        message: expect.stringMatching(/Property 'subjct' does not exist on type .*Did you mean 'subject'\?/),
        ...siteOf(source, "subjct"),
      }),
    ]);
  });

  it("passes a program that reads the declared fields of a result, with their types", () => {
    const source = main(
      `const draft = await getDraft({ id: "d1" });\nconst to: string[] = draft.to;\nawait sendEmail({ to, subject: draft.subject, body: draft.body });`,
    );
    const facts = analyzer.analyze(source);
    expect(facts.diagnostics).toEqual([]);
    expect(facts.effects.map((e) => e.op)).toEqual(["email.get_draft", "email.send_email"]);
  });

  it("types a result field as declared: a status is a number, not a string", () => {
    const source = main(`const answer = await get({ url: "https://example.com/" });\nconst s: string = answer.status;`);
    const facts = analyzer.analyze(source);
    expect(facts.diagnostics).toEqual([
      expect.objectContaining({
        code: "type_error",
        message: "Type 'number' is not assignable to type 'string'. (TS2322)",
        ...siteOf(source, "s: string"),
      }),
    ]);
  });

  it("knows no Node or DOM globals", () => {
    const facts = analyzer.analyze(main(`const b = Buffer.from("x");\ndocument.title = "x";`));
    expect(facts.diagnostics.map((d) => d.message)).toEqual([
      "Cannot find name 'Buffer'. Do you need to install type definitions for node? Try `npm i --save-dev @types/node` and then add 'node' to the types field in your tsconfig. (TS2591)",
      "Cannot find name 'document'. Do you need to change your target library? Try changing the 'lib' compiler option to include 'dom'. (TS2584)",
    ]);
  });

  it("needs export default program(...)", () => {
    const facts = analyzer.analyze(`${PRELUDE}const x = 1;\n`);
    expect(facts.diagnostics).toContainEqual(
      expect.objectContaining({
        code: "invalid_program",
        message: "the program must end with `export default program({ rationale, guarantees, main })`",
      }),
    );
  });

  it("needs a literal rationale", () => {
    const source = `${PRELUDE}const why = "x";\nexport default program({ rationale: why, guarantees: [], async main() {} });\n`;
    const facts = analyzer.analyze(source);
    expect(facts.diagnostics).toEqual([
      expect.objectContaining({
        code: "invalid_program",
        message: "rationale must be a string literal",
        ...siteOf(source, "rationale: why"),
      }),
    ]);
  });

  it("needs an async main", () => {
    const source = `${PRELUDE}export default program({ rationale: "x", guarantees: [], main: () => Promise.resolve() });\n`;
    const facts = analyzer.analyze(source);
    expect(facts.diagnostics).toContainEqual(
      expect.objectContaining({ code: "invalid_program", message: "main must be an async function" }),
    );
  });

  it("refuses a guarantee that is not a constraint", () => {
    const source = programOf({ guarantees: `{ op: "email.*", count: { max: -1 } }`, main: "" });
    const facts = analyzer.analyze(source);
    expect(facts.ok).toBe(false);
    expect(facts.diagnostics).toEqual([
      expect.objectContaining({ code: "invalid_guarantee", ...siteOf(source, `{ op: "email.*", count`) }),
    ]);
    expect(facts.diagnostics[0]!.message).toMatch(/^not a valid guarantee at count\.max: /);
  });

  it("refuses a guarantee whose helper arguments are not constant", () => {
    const source = programOf({ top: `const who = [String(Date.now())];`, guarantees: `recipientsOnly(who)`, main: "" });
    const facts = analyzer.analyze(source);
    expect(facts.diagnostics).toEqual([
      expect.objectContaining({
        code: "invalid_guarantee",
        message: "the arguments of recipientsOnly must be constants the analysis can compute: who is not",
      }),
    ]);
  });

  it("refuses nesting past the limit at the first node too deep, and analyzes nesting below it", () => {
    const deep = main(`const x = ${"(".repeat(250)}1${")".repeat(250)};`);
    const facts = analyzer.analyze(deep);
    expect(facts.ok).toBe(false);
    expect(facts.diagnostics).toEqual([
      expect.objectContaining({
        code: "unsupported",
        construct: "deep nesting",
        message: expect.stringMatching(/more than 200 levels deep/),
      }),
    ]);
    expect(analyzer.analyze(main(`const x = ${"(".repeat(150)}1${")".repeat(150)};`)).diagnostics).toEqual([]);
  });

  it("refuses a program too deep for the parser itself with the same limit", () => {
    const facts = analyzer.analyze(main(`const x = ${"[".repeat(5000)}${"]".repeat(5000)};`));
    expect(facts.diagnostics).toEqual([
      {
        severity: "error",
        code: "unsupported",
        construct: "deep nesting",
        line: 1,
        column: 1,
        message: expect.stringMatching(/more than 200 levels deep/),
      },
    ]);
  });

  it("refuses a call inside a guarantee", () => {
    const source = programOf({ guarantees: `{ op: "email.*", count: { max: Math.max(1, 2) } }`, main: "" });
    const facts = analyzer.analyze(source);
    expect(facts.diagnostics).toContainEqual(
      expect.objectContaining({
        code: "refused_construct",
        construct: "call inside a guarantee",
        ...siteOf(source, "Math.max"),
      }),
    );
  });

  it("hashes the exact bytes and keeps the rationale apart", () => {
    const source = programOf({ main: "" });
    const facts = analyzer.analyze(source, { entry: "x.ts" });
    expect(facts.program).toEqual({ sha256: "" + require_sha256(source), entry: "x.ts" });
    expect(facts.rationale).toBe("test");
    expect(facts.summary).toEqual(["Makes no trusted call"]);
  });
});

import { createHash } from "node:crypto";
function require_sha256(text: string): string {
  return createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");
}

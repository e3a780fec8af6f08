import { inMain, send, type RegressionCase } from "./regression-case.js";

/** Evaluation order and control flow: module order, try/catch/finally, defaults, recursion. */
export const controlCases: RegressionCase[] = [
  {
    // found by the analyzer fuzzer: the oracle's CommonJS output once required it where it stood
    name: "an import below the code that uses it is bound before that code runs",
    source: inMain(`await ${send(`"a@x.com"`)};`, { guarantees: `recipientsOnly(["a@x.com"])` }).replace(
      /^(import \{ program \} from "countersign";\n)([\s\S]*)$/,
      "$2$1",
    ),
    statuses: ["proven"],
  },
  {
    name: "a top-level declaration after export default runs before main",
    source: inMain(`await sendEmail({ to, subject: "s", body: "b" });`, {
      top: `const to = ["a@x.com"];`,
      after: `const n = to.push("evil@x.com");\n`,
      guarantees: `recipientsOnly(["a@x.com"])`,
    }),
  },
  {
    name: "a trusted call in a top-level declaration after export default",
    source: inMain(``, { after: `const sent = ${send(`"a@x.com"`)};\n`, guarantees: `atMostEmails(0)` }),
  },
  {
    name: "a return in finally replaces the try block's return only when it runs",
    source: inMain(
      `const f = (c: boolean): string => {\n  try { return "a@x.com"; } finally { if (c) return "b@x.com"; }\n};\nawait ${send(`f(Math.random() > 2)`)};`,
    ),
  },
  {
    name: "a break in finally swallows the exception: the code after the loop runs",
    source: inMain(
      `for (const a of [1]) {\n  try { throw new Error("x"); } finally { break; }\n}\nawait ${send(`"a@x.com"`)};`,
      { guarantees: `atMostEmails(1)` },
    ),
    statuses: ["proven"],
  },
  {
    name: "a continue in finally swallows the exception of every iteration",
    source: inMain(
      `let n = 0;\nfor (const a of [1, 2]) {\n  try { n++; throw new Error("x"); } finally { continue; }\n}\nawait ${send(`String(n)`)};`,
      { guarantees: `atMostEmails(1)` },
    ),
    statuses: ["proven"],
  },
  {
    name: "a return in finally swallows the exception and gives the value",
    source: inMain(
      `const f = (): string => {\n  try { throw new Error("x"); } finally { return "evil@x.com"; }\n};\nawait ${send(`f()`)};`,
      { guarantees: `recipientsOnly(["evil@x.com"])` },
    ),
    statuses: ["proven"],
  },
  {
    name: "a write in catch before a rethrow is seen by finally",
    source: inMain(
      `let to = "a@x.com";\ntry {\n  try { throw new Error("x"); } catch (e) { to = "evil@x.com"; throw e; } finally { await ${send(`to`)}; }\n} catch {}`,
      { guarantees: `recipientsOnly(["a@x.com"])` },
    ),
  },
  {
    name: "a default parameter runs when a function passed as a value is called",
    source: inMain(
      `const f = (a: string, b: string = (void ${send(`a`)}, "x")): string => a + b;\nf("a@x.com");\nconst g = [f];\ng[0]!("evil@x.com");`,
      { guarantees: `recipientsOnly(["a@x.com"])` },
    ),
  },
  {
    name: "a default parameter runs on a call with spread arguments",
    reads: [["evil@x.com"]],
    source: inMain(
      `const f = (a: string, b: string = (void ${send(`a`)}, "x")): string => a + b;\nf("a@x.com");\nconst args = String((await getDraft({ id: "1" })).body).split(",") as [string];\nf(...args);`,
      { guarantees: `recipientsOnly(["a@x.com"])` },
    ),
  },
  {
    name: "a default parameter runs in a recursive call",
    source: inMain(
      `const f = (n: number, a: string = (void ${send(`String(n)`)}, "x")): number => (n > 0 ? f(n - 1) : 0);\nf(0);\nf(2, "y");`,
    ),
  },
  {
    name: "a default runs only when the value is undefined: maybe, for a value read from outside",
    reads: [["a body"]],
    source: inMain(`const d = await getDraft({ id: "1" });\nconst { body = (void ${send(`"a@x.com"`)}, "x") } = d;`),
  },
  {
    name: "a callback's extra parameter gets the array, so its default never runs",
    source: inMain(
      `const ys = ["a@x.com"].map((x: string, i: number, all: string[] = ["evil@x.com"]) => all[0] ?? "q");\nawait sendEmail({ to: ys, subject: "s", body: "b" });\n["a"].forEach((x: string, i: number, all: string[] = (void ${send(`"a@x.com"`)}, [])) => {});`,
    ),
  },
  {
    name: "a named function expression calls itself by its own name",
    source: inMain(
      `const f = function again(n: number): number {\n  if (n > 0) { void ${send(`"a@x.com"`)}; return again(n - 1); }\n  return 0;\n};\nf(3);`,
      { guarantees: `atMostEmails(1)` },
    ),
  },
];

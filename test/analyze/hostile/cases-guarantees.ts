import type { HostileCase } from "./case.js";
import { prog } from "./program.js";

/** Guarantees must be data the analysis can read: no code, no values it cannot compute. */
export const guaranteeCases: HostileCase[] = [
  {
    name: "a guarantee made by a local function",
    source: prog(``, {
      top: `function makeG() { return { op: "email.*" as const, count: { max: 100 } }; }\n`,
      guarantees: `⟦makeG()`,
    }),
    code: "invalid_guarantee",
  },
  {
    name: "a contract helper with a computed argument",
    source: prog(``, { top: `function many(): number { return 100; }\n`, guarantees: `atMostEmails(⟦many())` }),
    code: "refused_construct",
    construct: "call inside a guarantee",
  },
  {
    name: "an arrow inside a guarantee",
    source: prog(``, { guarantees: `{ op: "email.*", count: { max: ⟦(() => 1)() } }` }),
    code: "refused_construct",
    construct: "call inside a guarantee",
  },
  {
    name: "a guarantee whose op is not a pattern",
    source: prog(``, { top: `const op = "email" + "!";\n`, guarantees: `⟦{ op: op as "email.*", count: { max: 1 } }` }),
    code: "invalid_guarantee",
  },
  // Only a cast gets these past the type checker, and casts that claim any type are refused.
  {
    name: "a guarantee with an unknown constraint key",
    source: prog(``, { guarantees: `{ op: "email.*", args: { to: ⟦{ inn: ["a@x.com"] } as never } }` }),
    code: "refused_construct",
    construct: "a cast to never",
  },
  {
    name: "a guarantee that is a number",
    source: prog(``, { guarantees: `⟦1 as never` }),
    code: "refused_construct",
    construct: "a cast to never",
  },
  {
    name: "a guarantee read from a trusted call's result",
    source: prog(``, { top: `const g = getDraft({ id: "1" });\n`, guarantees: `⟦g as unknown as { op: string }` }),
    code: "refused_construct",
    construct: "a double cast",
  },
  {
    name: "a guarantee on an op that does not exist (proven about nothing)",
    source: prog(``, { guarantees: `⟦{ op: "email.send_mail", count: { max: 0 } }` }),
    code: "invalid_guarantee",
  },
  {
    name: "a guarantee on an op glob that matches no op",
    source: prog(``, { guarantees: `⟦{ op: "email.nothing_*", count: { max: 0 } }` }),
    code: "invalid_guarantee",
  },
  {
    name: "a guarantee on an input the op does not have",
    source: prog(``, { guarantees: `⟦{ op: "email.*", args: { too: { in: ["a@x.com"] } } }` }),
    code: "invalid_guarantee",
  },
  {
    name: "a guarantee on an input of another connector",
    source: prog(``, { guarantees: `⟦{ op: "email.*", args: { path: { under: "/tmp" } } }` }),
    code: "invalid_guarantee",
  },
  {
    name: "distinct on an input the op does not have",
    source: prog(``, { guarantees: `⟦{ op: "fs.write_file", distinct: "to" }` }),
    code: "invalid_guarantee",
  },
  {
    name: "a guarantee object changed by top-level code after program(...) reads it",
    source: prog(``, { top: `const g = { op: "email.*" as const, count: { max: 0 } };\n`, guarantees: `⟦g` }).replace(
      /$/,
      `const widen = ((): number => { g.count.max = 100; return 1; })();\n`,
    ),
    code: "invalid_guarantee",
  },
  {
    name: "a guarantee object changed by top-level code before program(...) reads it",
    source: prog(``, {
      top: `const g = { op: "email.*" as const, count: { max: 0 } };\nconst widen = (n: number): number => { g.count = { max: n }; return n; };\nconst x = widen(100);\n`,
      guarantees: `⟦g`,
    }),
    code: "invalid_guarantee",
  },
  {
    name: "a guarantee pushed into a list by top-level code",
    source: prog(``, {
      top: `const g = { op: "email.*" as const, count: { max: 1 } };\nconst limits = [g];\nconst y = ((): number => { limits.push({ op: "email.*", count: { max: 5 } }); return 0; })();\n`,
      guarantees: `g, ⟦limits[1]!`,
    }),
    code: "invalid_guarantee",
  },
];

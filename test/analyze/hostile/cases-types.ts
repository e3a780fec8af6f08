import type { HostileCase } from "./case.js";
import { prog } from "./program.js";

const mail = `{ to: ["b@x.com"], subject: "s", body: "b" }`;
const refused = (construct: string): { code: string; construct: string } => ({ code: "refused_construct", construct });
const directive = refused("@ts- directive");

/** Types the program asserts: none may decide what the analysis believes. */
export const typeCases: HostileCase[] = [
  { name: "// @ts-ignore", source: prog(`// ⟦@ts-ignore\n    const n: number = "not a number";`), ...directive },
  {
    name: "/* @ts-expect-error */ in a block comment",
    source: prog(`/* ⟦@ts-expect-error */ const n: number = "s";`),
    ...directive,
  },
  {
    name: "@ts-ignore in a JSDoc comment",
    source: prog(`/**\n     * ⟦@ts-ignore\n     */\n    const n: number = "s";`),
    ...directive,
  },
  {
    name: "// @ts-nocheck before the imports",
    source: `// ⟦@ts-nocheck\n${prog(`const n: number = "s";`)}`,
    ...directive,
  },
  { name: "@TS-IGNORE in capitals", source: prog(`// ⟦@TS-IGNORE\n    const n = 1;`), ...directive },
  {
    name: "a directive inside a call's arguments",
    source: prog(`await sendEmail({ to: ["b@x.com"], /* ⟦@ts-ignore */ subject: "s", body: "b" });`),
    ...directive,
  },
  {
    name: "a directive after the last token",
    source: `${prog("")}/* trailing */ // ⟦@ts-expect-error\n`,
    ...directive,
  },
  {
    name: "@ts-ignore inside a string is only text",
    source: prog(`const s = "// @ts-ignore";\n    await ⟦sendEmail({ to: ["b@x.com"], subject: s, body: "b" });`),
    seen: { op: "email.send_email" },
  },
  {
    name: "a double cast through unknown",
    source: prog(`const O = ⟦Object as unknown as { assign(a: object, b: object): object };`),
    ...refused("a double cast"),
  },
  {
    name: "a double cast of a read result",
    source: prog(`const d = await getDraft({ id: "1" });\n    const to = ⟦d as unknown as string[];`),
    ...refused("a double cast"),
  },
  {
    name: "an angle-bracket double cast",
    source: prog(`const d = await getDraft({ id: "1" });\n    const to = ⟦<string[]><unknown>d;`),
    ...refused("a double cast"),
  },
  {
    name: "a double cast through never",
    source: prog(`const to = ⟦(1 as never) as string[];`),
    ...refused("a double cast"),
  },
  { name: "a cast to never", source: prog(`await sendEmail(⟦{ to: 1 } as never);`), ...refused("a cast to never") },
  {
    name: "a cast of a global namespace",
    source: prog(`const M = ⟦Math as { floor(x: number): number; sin(x: number): number };`),
    ...refused("a cast of Math"),
  },
  {
    name: "a cast of a built-in method",
    source: prog(`const f = ⟦Object.keys as (o: object) => string[];`),
    ...refused("a cast of Object"),
  },
  {
    name: "a cast of a global function",
    source: prog(`const p = ⟦(parseInt) as (s: string) => number;`),
    ...refused("a cast of parseInt"),
  },
  {
    name: "a cast of a trusted function",
    source: prog(`await (⟦sendEmail as (a: object) => Promise<unknown>)(${mail});`),
    ...refused("a cast of sendEmail"),
  },
  {
    name: "a variable typed as a trusted function",
    source: prog(`const f: ⟦typeof sendEmail = async () => ({ id: "x" }) as never;\n    await f(${mail});`),
    ...refused("the type of sendEmail"),
  },
  {
    name: "a generic instantiated to a trusted function's type",
    source: prog(`const g = id<⟦typeof sendEmail>(undefined as never);`, {
      top: `function id<T>(x: T): T { return x; }\n`,
    }),
    ...refused("the type of sendEmail"),
  },
  {
    name: "satisfies a trusted function's type",
    source: prog(`const h = (async () => ({ id: "x" })) satisfies ⟦typeof getDraft;`),
    ...refused("the type of getDraft"),
  },
  {
    name: "a parameter typed as a contract helper",
    source: prog(``, { top: `function g(r: ⟦typeof recipientsOnly): void {}\n` }),
    ...refused("the type of recipientsOnly"),
  },
  {
    name: "a function overload",
    source: prog(`f("x");`, {
      top: `⟦function f(a: string): string;\nfunction f(a: unknown): unknown { return a; }\n`,
    }),
    ...refused("function overload"),
  },
  {
    name: "an interface named Array (merging is for scripts; the name is refused anyway)",
    source: prog(``, { top: `interface ⟦Array<T> { fill(value: T): T[] }\n` }),
    ...refused("a type named Array"),
  },
  {
    name: "a type named Promise",
    source: prog(``, { top: `type ⟦Promise<T> = { then(): T };\n` }),
    ...refused("a type named Promise"),
  },
  {
    name: "a write to a built-in method",
    source: prog(`⟦Math.floor = (x: number) => x + 1;`),
    ...refused("a write to Math"),
  },
  {
    name: "a write to JSON.stringify",
    source: prog(`⟦JSON.stringify = () => "b@x.com";`),
    ...refused("a write to JSON"),
  },
  {
    name: "an assignment to a global",
    source: prog(`⟦Math = { ...Math, floor: (x: number) => x };`),
    ...refused("a write to Math"),
  },
  {
    name: "an increment of a built-in constant",
    source: prog(`⟦Number.MAX_SAFE_INTEGER++;`),
    ...refused("a write to Number"),
  },
  {
    name: ".call on a helper (Function has no call in the environment)",
    source: prog(`f.⟦call(undefined);`, { top: `function f(): void {}\n` }),
    code: "type_error",
  },
  {
    name: ".bind on a helper",
    source: prog(`const g = f.⟦bind(undefined);`, { top: `function f(): void {}\n` }),
    code: "type_error",
  },
  {
    name: "Object.assign (not in the environment)",
    source: prog(`Object.⟦assign({}, { to: ["b@x.com"] });`),
    code: "type_error",
  },
  {
    name: "Array.prototype.fill (not in the environment)",
    source: prog(`const xs = [1, 2].⟦fill(0);`),
    code: "type_error",
  },
  {
    name: "a conditional type (type-level recursion)",
    source: prog(``, { top: `type Deep<N extends unknown[]> = ⟦N["length"] extends 500 ? N : Deep<[...N, 0]>;\n` }),
    ...refused("conditional type"),
  },
  {
    name: "a template literal type (unions that multiply)",
    source: prog(``, { top: `type D = "0" | "1";\ntype N = ⟦\`\${D}\${D}\`;\n` }),
    ...refused("template literal type"),
  },
  {
    name: "a mapped type",
    source: prog(``, { top: `type Loose<T> = ⟦{ [K in keyof T]: unknown };\n` }),
    ...refused("mapped type"),
  },
  {
    name: "an optional call of a trusted function is still a direct call",
    source: prog(`await ⟦sendEmail?.(${mail});`),
    seen: { op: "email.send_email" },
  },
];

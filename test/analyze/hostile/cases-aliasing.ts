import type { HostileCase } from "./case.js";
import { prog } from "./program.js";

const mail = `{ to: ["b@x.com"], subject: "s", body: "b" }`;
const asValue = (name: string): { code: string; construct: string } => ({
  code: "refused_construct",
  construct: `trusted function ${name} used as a value`,
});

/** Trusted functions used other than by a direct call: each would hide a call site from the analysis. */
export const aliasingCases: HostileCase[] = [
  {
    name: "an alias in a const",
    source: prog(`const f = ⟦sendEmail;\n    await f(${mail});`),
    ...asValue("sendEmail"),
  },
  {
    name: "an alias assigned to a let later",
    source: prog(`let g: typeof sendEmail | undefined;\n    g = ⟦sendEmail;\n    await g(${mail});`),
    ...asValue("sendEmail"),
  },
  {
    name: "inside an object",
    source: prog(`const box = { f: ⟦sendEmail };\n    await box.f(${mail});`),
    ...asValue("sendEmail"),
  },
  {
    name: "shorthand in an object",
    source: prog(`const box = { ⟦sendEmail };\n    await box.sendEmail(${mail});`),
    ...asValue("sendEmail"),
  },
  {
    name: "destructured back out of an object",
    source: prog(`const { sendEmail: s } = { sendEmail: ⟦sendEmail };\n    await s(${mail});`),
    ...asValue("sendEmail"),
  },
  { name: "inside an array", source: prog(`await [⟦sendEmail][0]!(${mail});`), ...asValue("sendEmail") },
  { name: "the comma operator", source: prog(`await (0, ⟦sendEmail)(${mail});`), ...asValue("sendEmail") },
  { name: "parenthesized callee", source: prog(`await (⟦sendEmail)(${mail});`), ...asValue("sendEmail") },
  { name: ".call", source: prog(`await ⟦sendEmail.call(undefined, ${mail});`), ...asValue("sendEmail") },
  { name: ".apply", source: prog(`await ⟦sendEmail.apply(undefined, [${mail}]);`), ...asValue("sendEmail") },
  {
    name: ".bind",
    source: prog(`const later = ⟦sendEmail.bind(undefined);\n    await later(${mail});`),
    ...asValue("sendEmail"),
  },
  {
    name: "a string-keyed member",
    source: prog(`await ⟦sendEmail["call"](undefined, ${mail});`),
    ...asValue("sendEmail"),
  },
  {
    name: "passed to a helper",
    source: prog(`await run(⟦sendEmail);`, {
      top: `async function run(f: (a: { to: string[]; subject: string; body: string }) => Promise<unknown>): Promise<void> { await f(${mail}); }\n`,
    }),
    ...asValue("sendEmail"),
  },
  {
    name: "passed as a callback",
    source: prog(`await Promise.all([${mail}].map(⟦sendEmail));`),
    ...asValue("sendEmail"),
  },
  {
    name: "returned from a helper",
    source: prog(`await pick()(${mail});`, { top: `function pick(): typeof sendEmail { return ⟦sendEmail; }\n` }),
    ...asValue("sendEmail"),
  },
  {
    name: "returned from an arrow",
    source: prog(`const pick = () => ⟦sendEmail;\n    await pick()(${mail});`),
    ...asValue("sendEmail"),
  },
  { name: "spread into an array", source: prog(`const fs = [...[⟦sendEmail]];`), ...asValue("sendEmail") },
  { name: "compared", source: prog(`if (⟦sendEmail === sendEmail) { }`), ...asValue("sendEmail") },
  { name: "typeof of a trusted function", source: prog(`const t = typeof ⟦sendEmail;`), ...asValue("sendEmail") },
  {
    name: "a conditional callee",
    source: prog(`await (Math.random() > 0.5 ? ⟦sendEmail : sendEmail)(${mail});`),
    ...asValue("sendEmail"),
  },
  { name: "a logical callee", source: prog(`await (⟦sendEmail || sendEmail)(${mail});`), ...asValue("sendEmail") },
  {
    name: "an as any cast",
    source: prog(`await (⟦sendEmail as any)(${mail});`),
    code: "refused_construct",
    construct: "trusted function sendEmail used as a value",
  },
  {
    name: "an angle-bracket cast",
    source: prog(`await (<typeof sendEmail>⟦sendEmail)(${mail});`),
    ...asValue("sendEmail"),
  },
  { name: "a non-null assertion on the callee", source: prog(`await ⟦sendEmail!(${mail});`), ...asValue("sendEmail") },
  { name: "new on a trusted function", source: prog(`const x = new ⟦sendEmail(${mail});`), ...asValue("sendEmail") },
  {
    name: "a default parameter value",
    source: prog(`await h();`, { top: `async function h(f = ⟦sendEmail): Promise<void> { await f(${mail}); }\n` }),
    ...asValue("sendEmail"),
  },
  {
    name: "spread arguments into a trusted call",
    source: prog(
      `const args: [{ to: string[]; subject: string; body: string }] = [${mail}];\n    await ⟦sendEmail(...args);`,
    ),
    code: "refused_construct",
    construct: "spread arguments in an API call",
  },
  {
    name: "a trusted function as an object method value",
    source: prog(`const o = { go: ⟦readFile };`),
    ...asValue("readFile"),
  },
  {
    name: "a contract helper called in main",
    source: prog(`const g = ⟦atMostEmails(0);`),
    code: "refused_construct",
    construct: "atMostEmails used here",
  },
  {
    name: "program called twice",
    source: prog(`const p = ⟦program({ rationale: "x", async main() {} });`),
    code: "refused_construct",
    construct: "program used here",
  },
  {
    name: "a namespace import then a computed member",
    source: prog(`await t["send" + "Email"](${mail});`, {
      imports: `import { program } from "countersign";\nimport ⟦* as t from "trusted/email";\n`,
    }),
    code: "refused_import",
    construct: "namespace import",
  },
  {
    name: "computed access with a built key",
    source: prog(`const o: Record<string, string> = { a: "b@x.com" };\n    const k = "a" + "";\n    const to = o[⟦k];`),
    code: "refused_construct",
    construct: "computed member access",
  },
  // Not hidden: these are ordinary direct calls and must show up as effects.
  {
    name: "a unicode escape in the callee",
    source: prog(`await ⟦s\\u0065ndEmail(${mail});`),
    seen: { op: "email.send_email" },
  },
  {
    name: "a braced unicode escape in the callee",
    source: prog(`await ⟦\\u{73}endEmail(${mail});`),
    seen: { op: "email.send_email" },
  },
  {
    name: "a renamed import",
    source: prog(`await ⟦quietly(${mail});`, {
      imports: `import { program } from "countersign";\nimport { sendEmail as quietly } from "trusted/email";\n`,
    }),
    seen: { op: "email.send_email" },
  },
  {
    name: "an escaped renamed import",
    source: prog(`await ⟦q\\u0075ietly(${mail});`, {
      imports: `import { program } from "countersign";\nimport { s\\u0065ndEmail as quietly } from "trusted/email";\n`,
    }),
    seen: { op: "email.send_email" },
  },
  { name: "an optional call", source: prog(`await ⟦sendEmail?.(${mail});`), seen: { op: "email.send_email" } },
  {
    name: "a call inside a callback",
    source: prog(`["a"].forEach(() => { void ⟦sendEmail(${mail}); });`),
    seen: { op: "email.send_email" },
  },
  {
    name: "a call in a default parameter value",
    source: prog(`await h();`, { top: `async function h(r = ⟦sendEmail(${mail})): Promise<void> { await r; }\n` }),
    seen: { op: "email.send_email" },
  },
];

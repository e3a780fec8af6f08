import type { HostileCase } from "./case.js";
import { prog } from "./program.js";

const mail = `{ to: ["b@x.com"], subject: "s", body: "b" }`;
const evalAt = prog(`const a = "x";\n    const b = ⟦eval(a);`);
const crlf = (s: string): string => s.replace(/\n/g, "\r\n");

/** The same refusal whatever the bytes around it: lines and columns are the ones an editor shows. */
export const encodingCases: HostileCase[] = [
  { name: "a byte order mark", source: `\uFEFF${evalAt}`, code: "refused_construct", construct: "eval" },
  { name: "CRLF line ends", source: crlf(evalAt), code: "refused_construct", construct: "eval" },
  { name: "CR line ends", source: evalAt.replace(/\n/g, "\r"), code: "refused_construct", construct: "eval" },
  {
    name: "a line separator (U+2028) ends a line",
    source: prog(`const a = 1;\u2028    const b = ⟦eval("a");`),
    code: "refused_construct",
    construct: "eval",
  },
  {
    name: "astral characters before it on the line count as two columns",
    source: prog(`const a = "😀😀"; const b = ⟦eval(a);`),
    code: "refused_construct",
    construct: "eval",
  },
  {
    name: "a tab counts as one column",
    source: prog(`const a = 1;\t\tconst b = ⟦eval("a");`),
    code: "refused_construct",
    construct: "eval",
  },
  {
    name: "a BOM and CRLF: the trusted call is still seen where it is",
    source: `\uFEFF${crlf(prog(`const a = 1;\n    await ⟦sendEmail(${mail});`))}`,
    seen: { op: "email.send_email" },
  },
  // Compiler directives hide type errors; they must not hide anything from the allowlist or the effects.
  {
    name: "@ts-nocheck does not turn off the allowlist",
    source: `// @ts-nocheck\n${prog(`const f = ⟦sendEmail;\n    await f(${mail});`)}`,
    code: "refused_construct",
    construct: "trusted function sendEmail used as a value",
  },
  {
    name: "@ts-ignore does not turn off the allowlist",
    source: prog(`// @ts-ignore\n    const x = ⟦eval(1);`),
    code: "refused_construct",
    construct: "eval",
  },
  {
    name: "@ts-expect-error does not hide a call",
    source: prog(`// @ts-expect-error\n    await ⟦sendEmail({ to: "b@x.com", subject: "s", body: "b" });`),
    seen: { op: "email.send_email" },
  },
  {
    name: "@ts-ignore on a call with type arguments: still seen",
    source: prog(`// @ts-ignore\n    await ⟦sendEmail<string>(${mail});`),
    seen: { op: "email.send_email" },
  },
];

import type { AdversarialCase } from "./case.js";
import { mail, prog } from "./program.js";

/** Types are never trusted for security. */
export const typeCases: AdversarialCase[] = [
  {
    name: "@ts-ignore",
    expect: { refused: "@ts-ignore" },
    open: {
      class: "facts-miss",
      what: "@ts-ignore, @ts-expect-error and @ts-nocheck are not refused; they let a program reach every built-in the sandbox has but the lib does not declare (see the Object.assign, fill and defineProperty value cases)",
    },
    source: prog(`// @ts-ignore
    await sendEmail({ to: "me@example.com", subject: 1, body: "b" });`),
  },
  {
    name: "@ts-expect-error",
    expect: { refused: "@ts-expect-error" },
    open: { class: "facts-miss", what: "as for @ts-ignore" },
    source: prog(`// @ts-expect-error
    await sendEmail({ to: "me@example.com", subject: 1, body: "b" });`),
  },
  {
    name: "@ts-nocheck",
    expect: { refused: "@ts-nocheck" },
    open: { class: "facts-miss", what: "as for @ts-ignore, for the whole file" },
    source: `// @ts-nocheck\n${prog(`await sendEmail(${mail(`["me@example.com"]`)});`)}`,
  },
  {
    name: "a double cast through unknown",
    expect: { refused: "double cast" },
    source: prog(`const to = [5] as unknown as string[];
    await sendEmail(${mail("to")});`),
  },
  {
    name: "a local function typed as a trusted one",
    expect: "covered",
    source:
      prog(`const f: typeof sendEmail = async (a) => { await get({ url: "https://evil.com/" }); return { id: "x" } as never; };
    await f(${mail(`["me@example.com"]`)});`),
  },
  {
    name: "an overloaded helper",
    expect: "covered",
    source: prog(`await send("x");`, {
      top: `async function send(x: string): Promise<void>;\nasync function send(x: string | number): Promise<void> { await sendEmail(${mail(`["boss@rival.com"]`)}); }\n`,
    }),
  },
  {
    name: "a local interface named like a built-in",
    expect: "covered",
    source: prog(
      `const xs: Array<string> = ["me@example.com"];
    await sendEmail(${mail("xs")});`,
      { top: `interface Array<T> { evil?: T }\n` },
    ),
  },
];

import type { AdversarialCase } from "./case.js";
import { mail, prog } from "./program.js";

const m = mail(`["me@example.com"]`);

/** How many times a call runs: loops, recursion, callbacks, detached calls, finally, exceptions. */
export const countCases: AdversarialCase[] = [
  {
    name: "an optional call skips its arguments when the receiver is null",
    expect: "covered",
    source: prog(
      `const o = null as { f: (x: unknown) => void } | null;
    o?.f(sendEmail(${m}));`,
      { guarantees: "atMostEmails(0)" },
    ),
  },
  {
    name: "a finally block that may return drops the try block's return value",
    expect: "covered",
    reads: [["no"]],
    source: prog(
      `const d = await getDraft({ id: "1" });
    const to = pick(String(d.body) === "yes");
    await sendEmail(${mail("to")});`,
      {
        top: `function pick(flag: boolean): string[] {
  try { return ["boss@rival.com"]; } finally { if (flag) return []; }
}
`,
      },
    ),
  },
  {
    name: "a finally block that may return loses the calls on its return path",
    expect: "covered",
    reads: [["yes"]],
    source: prog(
      `const d = await getDraft({ id: "1" });
    const flag = String(d.body) === "yes";
    pick(flag); pick(flag); pick(flag);`,
      {
        top: `function pick(flag: boolean): number {
  try { return 1; } finally { if (flag) { void sendEmail(${m}); return 2; } }
}
`,
        guarantees: "atMostEmails(1)",
      },
    ),
  },
  // Controls: counts the analysis gets right (refuted or within the bound in every run).
  {
    name: "a while loop with a float step",
    expect: "covered",
    source: prog(`let i = 0;\n    while (i !== 1) { i += 0.1; await sendEmail(${m}); if (i > 2) break; }`, {
      guarantees: "atMostEmails(30)",
    }),
  },
  {
    name: "for...of over a string",
    expect: "covered",
    source: prog(`for (const c of "abc") { await sendEmail(${mail(`["me@example.com"]`, "c")}); }`, {
      guarantees: "atMostEmails(3)",
    }),
  },
  {
    name: "recursion through a map callback",
    expect: "covered",
    source: prog(`await walk(3);`, {
      top: `async function walk(n: number): Promise<void> { await sendEmail(${m}); if (n > 0) await [n - 1].map((k) => walk(k))[0]; }\n`,
      guarantees: "atMostEmails(4)",
    }),
  },
  {
    name: "mutual recursion",
    expect: "covered",
    source: prog(`await a(3);`, {
      top: `async function a(n: number): Promise<void> { await sendEmail(${m}); if (n > 0) await b(n - 1); }\nasync function b(n: number): Promise<void> { if (n > 0) await a(n - 1); }\n`,
      guarantees: "atMostEmails(2)",
    }),
  },
  {
    name: "a .then callback on a resolved promise",
    expect: "covered",
    source: prog(`const p = Promise.resolve().then(() => sendEmail(${m}));\n    await p;\n    await sendEmail(${m});`, {
      guarantees: "atMostEmails(2)",
    }),
  },
  {
    name: "finally continue overrides break",
    expect: "covered",
    source: prog(
      `for (let i = 0; i < 2; i++) {\n      try { break; } finally { continue; }\n    }\n    await sendEmail(${m});`,
      { guarantees: "atMostEmails(1)" },
    ),
  },
  {
    name: "finally continue overrides return",
    expect: "covered",
    source: prog(`await f();`, {
      top: `async function f(): Promise<number> { for (let i = 0; i < 3; i++) { try { return 1; } finally { await sendEmail(${m}); if (i < 2) continue; } } return 0; }\n`,
      guarantees: "atMostEmails(3)",
    }),
  },
  {
    name: "finally return swallows a throw",
    expect: "covered",
    source: prog(`const r = await f();\n    await sendEmail(${mail("[r]")});`, {
      top: `async function f(): Promise<string> { try { throw new Error("x"); } finally { return "me@example.com"; } }\n`,
    }),
  },
  {
    name: "an exception that undoes the loop step",
    expect: "covered",
    source: prog(
      `let i = 0;\n    while (i < 2) { try { await sendEmail(${m}); if (i === 0) throw new Error("again"); i++; } catch { i--; if (i < -2) break; } }`,
      { guarantees: "atMostEmails(6)" },
    ),
  },
  {
    name: "splice grows the array a for loop walks",
    expect: "covered",
    source: prog(
      `const xs = [1, 2];\n    for (let i = 0; i < xs.length; i++) { await sendEmail(${m}); if (i === 0) xs.splice(0, 0, 9, 9); }`,
      { guarantees: "atMostEmails(4)" },
    ),
  },
  {
    name: "a while condition with a side effect",
    expect: "covered",
    source: prog(
      `let n = 0;\n    const next = (): boolean => { n++; return n < 4; };\n    while (next()) { await sendEmail(${m}); }`,
      { guarantees: "atMostEmails(3)" },
    ),
  },
  {
    name: "closures collected in a loop, called later",
    expect: "covered",
    source: prog(
      `const fs: (() => Promise<unknown>)[] = [];\n    for (let i = 0; i < 3; i++) fs.push(() => sendEmail(${m}));\n    for (const f of fs) await f();`,
      { guarantees: "atMostEmails(3)" },
    ),
  },
  {
    name: "detached async calls collected, then awaited together",
    expect: "covered",
    source: prog(
      `const job = async (): Promise<void> => { await getDraft({ id: "1" }); await sendEmail(${m}); };\n    const ps = [job(), job()];\n    await Promise.all(ps);`,
      { guarantees: "atMostEmails(2)" },
    ),
  },
  {
    name: "an async forEach callback",
    expect: "covered",
    source: prog(`["a", "b", "c"].forEach(async (x) => { await sendEmail(${mail(`["me@example.com"]`, "x")}); });`, {
      guarantees: "atMostEmails(3)",
    }),
  },
];

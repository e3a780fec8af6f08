import { inMain, send, type RegressionCase } from "./regression-case.js";

/** Iteration as JavaScript does it: arrays changed while iterated, strings by code point, spread arguments. */
export const iterationCases: RegressionCase[] = [
  {
    name: "for...of over a Map's keys() sees keys the body adds",
    source: inMain(
      `const m = new Map([["a@x.com", 1]]);\nfor (const k of m.keys()) {\n  if (m.size < 3) m.set(k + "x", 1);\n  await ${send(`"a@x.com"`)};\n}`,
      { guarantees: `atMostEmails(1)` },
    ),
  },
  {
    name: "forEach over a Set visits elements its callback adds through its third argument",
    source: inMain(
      `new Set(["a"]).forEach((...args: (string | Set<string>)[]) => {\n  const owner = args[2];\n  if (typeof owner === "object" && owner.size < 3) owner.add(owner.size + "");\n  void ${send(`"a@x.com"`)};\n});`,
      { guarantees: `atMostEmails(1)` },
    ),
  },
  {
    name: "an iterator walked twice yields nothing the second time",
    source: inMain(
      `const s = new Set(["a@x.com"]);\nconst it = s.values();\nfor (const x of it) { }\nfor (const x of it) await ${send(`x`)};`,
    ),
  },
  {
    name: "a Set changed through a second name is read back with what was added",
    source: inMain(
      `const s = new Set<string>(["a@x.com"]);\nconst alias = s;\nalias.add("evil@x.com");\nfor (const x of s) await ${send(`x`)};`,
      { guarantees: `recipientsOnly(["a@x.com"])` },
    ),
  },
  {
    name: "a read pushed through a second name for an array comes back as the read",
    source: inMain(
      `const d = await getDraft({ id: "r" });\nconst a: string[] = [];\nconst b = a;\nb.push(String(d.body));\nawait sendEmail({ to: ["a@x.com"], subject: "s", body: a[0] ?? "" });`,
    ),
    reads: [["hello"]],
  },
  {
    name: "a read stored in a Map through a helper's parameter comes back as the read",
    source: inMain(
      `const d = await getDraft({ id: "r" });\nconst m = new Map<string, string>();\nput(m, String(d.body));\nawait sendEmail({ to: ["a@x.com"], subject: "s", body: m.get("k") ?? "" });`,
      { top: `function put(target: Map<string, string>, value: string): void { target.set("k", value); }\n` },
    ),
    reads: [["hello"]],
  },
  {
    name: "a computed index past the end reads undefined",
    source: inMain(
      `const xs = ["a@x.com"];\nconst i = xs.indexOf("a@x.com") + 1;\nawait ${send(`xs[i] ?? "evil@x.com"`)};`,
      { guarantees: `recipientsOnly(["a@x.com"])` },
    ),
  },
  {
    name: "for...of over an array the body pushes to sees the new elements",
    source: inMain(
      `const xs = ["a@x.com"];\nfor (const x of xs) {\n  if (xs.length < 3) xs.push("evil@x.com");\n  await ${send(`x`)};\n}`,
      { guarantees: `recipientsOnly(["a@x.com"])` },
    ),
  },
  {
    name: "for...of over an array the body writes an element of sees the write",
    source: inMain(
      `const xs = ["a@x.com", "a@x.com"];\nfor (const x of xs) {\n  xs[1] = "evil@x.com";\n  await ${send(`x`)};\n}`,
      { guarantees: `recipientsOnly(["a@x.com"])` },
    ),
  },
  {
    name: "for...of over an array the body pops from stops early",
    source: inMain(
      `const xs = ["a@x.com", "b@x.com", "c@y.org"];\nfor (const x of xs) {\n  xs.pop();\n  await ${send(`x`)};\n}`,
    ),
  },
  {
    name: "for...of over a string walks code points, not UTF-16 units",
    source: inMain(
      `const out: string[] = [];\nfor (const c of "😀x") out.push(c);\nawait sendEmail({ to: out, subject: String(out.length), body: "b" });`,
      { guarantees: `{ op: "email.send_email", args: { subject: { eq: "2" } } }` },
    ),
    statuses: ["proven"],
  },
  {
    name: "array destructuring of a string takes code points",
    source: inMain(
      `const s: string = "😀x";\nconst [a = "?", b = "?"] = s;\nawait sendEmail({ to: [a, b], subject: "s", body: "b" });`,
      { guarantees: `recipientsOnly(["😀", "x"])` },
    ),
    statuses: ["proven"],
  },
  {
    name: "spreading a string takes code points",
    source: inMain(`const s: string = "😀x";\nawait sendEmail({ to: [...s], subject: "s", body: "b" });`, {
      guarantees: `{ op: "email.send_email", args: { to: { in: ["😀", "x"] } } }`,
    }),
    statuses: ["proven"],
  },
  {
    name: "Array.from of a string makes its code points",
    source: inMain(`const s: string = "😀x";\nawait sendEmail({ to: Array.from(s), subject: "s", body: "b" });`, {
      guarantees: `recipientsOnly(["😀", "x"])`,
    }),
    statuses: ["proven"],
  },
  {
    name: "push(...xs) with xs of unknown length adds any number of elements",
    reads: [["a@x.com,b@x.com,c@y.org"]],
    source: inMain(
      `const parts = String((await getDraft({ id: "1" })).body).split(",");\nconst xs: string[] = [];\nxs.push(...parts);\nfor (const x of xs) await ${send(`x`)};`,
    ),
  },
  {
    name: "unshift(...xs) with xs of unknown length",
    reads: [["a@x.com,b@x.com"]],
    source: inMain(
      `const xs: string[] = ["q@x.com"];\nxs.unshift(...String((await getDraft({ id: "1" })).body).split(","));\nfor (const x of xs) await ${send(`x`)};`,
    ),
  },
  {
    name: 'a mutator called with a string key, xs["push"](x), changes the array',
    source: inMain(
      `const xs = ["a@x.com"];\nxs["push"]("evil@x.com");\nawait sendEmail({ to: xs, subject: "s", body: "b" });`,
      { guarantees: `recipientsOnly(["a@x.com"])` },
    ),
  },
];

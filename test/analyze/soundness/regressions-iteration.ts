import { inMain, send, type RegressionCase } from "./regression-case.js";

/** Iteration as JavaScript does it: arrays changed while iterated, strings by code point, spread arguments. */
export const iterationCases: RegressionCase[] = [
  {
    name: "for...of over an array the body pushes to sees the new elements",
    source: inMain(`const xs = ["a@x.com"];\nfor (const x of xs) {\n  if (xs.length < 3) xs.push("evil@x.com");\n  await ${send(`x`)};\n}`, { guarantees: `recipientsOnly(["a@x.com"])` }),
  },
  {
    name: "for...of over an array the body writes an element of sees the write",
    source: inMain(`const xs = ["a@x.com", "a@x.com"];\nfor (const x of xs) {\n  xs[1] = "evil@x.com";\n  await ${send(`x`)};\n}`, { guarantees: `recipientsOnly(["a@x.com"])` }),
  },
  {
    name: "for...of over an array the body pops from stops early",
    source: inMain(`const xs = ["a@x.com", "b@x.com", "c@y.org"];\nfor (const x of xs) {\n  xs.pop();\n  await ${send(`x`)};\n}`),
  },
  {
    name: "for...of over a string walks code points, not UTF-16 units",
    source: inMain(`const out: string[] = [];\nfor (const c of "😀x") out.push(c);\nawait sendEmail({ to: out, subject: String(out.length), body: "b" });`, { guarantees: `{ op: "email.send_email", args: { subject: { eq: "2" } } }` }),
    statuses: ["proven"],
  },
  {
    name: "array destructuring of a string takes code points",
    source: inMain(`const s: string = "😀x";\nconst [a = "?", b = "?"] = s;\nawait sendEmail({ to: [a, b], subject: "s", body: "b" });`, { guarantees: `recipientsOnly(["😀", "x"])` }),
    statuses: ["proven"],
  },
  {
    name: "spreading a string takes code points",
    source: inMain(`const s: string = "😀x";\nawait sendEmail({ to: [...s], subject: "s", body: "b" });`, { guarantees: `{ op: "email.send_email", args: { to: { in: ["😀", "x"] } } }` }),
    statuses: ["proven"],
  },
  {
    name: "Array.from of a string makes its code points",
    source: inMain(`const s: string = "😀x";\nawait sendEmail({ to: Array.from(s), subject: "s", body: "b" });`, { guarantees: `recipientsOnly(["😀", "x"])` }),
    statuses: ["proven"],
  },
  {
    name: "push(...xs) with xs of unknown length adds any number of elements",
    reads: [["a@x.com,b@x.com,c@y.org"]],
    source: inMain(`const parts = String((await getDraft({ id: "1" })).body).split(",");\nconst xs: string[] = [];\nxs.push(...parts);\nfor (const x of xs) await ${send(`x`)};`),
  },
  {
    name: "unshift(...xs) with xs of unknown length",
    reads: [["a@x.com,b@x.com"]],
    source: inMain(`const xs: string[] = ["q@x.com"];\nxs.unshift(...String((await getDraft({ id: "1" })).body).split(","));\nfor (const x of xs) await ${send(`x`)};`),
  },
  {
    name: 'a mutator called with a string key, xs["push"](x), changes the array',
    source: inMain(`const xs = ["a@x.com"];\nxs["push"]("evil@x.com");\nawait sendEmail({ to: xs, subject: "s", body: "b" });`, { guarantees: `recipientsOnly(["a@x.com"])` }),
  },
];

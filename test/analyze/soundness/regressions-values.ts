import { inMain, send, type RegressionCase } from "./regression-case.js";

/** Values JavaScript computes differently from a naive reading: thenables, optional chains, conversions, large constants. */
export const valueCases: RegressionCase[] = [
  // Arguments that are not plain data are refused at the boundary before reaching the host; the
  // call still counts at its site (the sandbox records it refused), so its facts' 1..1 hold.
  {
    name: "a list with a hole (an index write past its length), its refused call dropped by allSettled",
    source: inMain(
      `const p: string[] = [];\np[1] = "a@x.com";\nawait Promise.allSettled([${send(`...Array.from(p)`)}]);`,
      { guarantees: `atMostEmails(1)` },
    ),
  },
  {
    name: "a sparse list flattened with its Array.from copy: the copy holds undefined",
    source: inMain(
      `const p: string[] = [];\nlet k = 1;\np[k++] = "b@x.com";\np.push("a@x.com");\nawait Promise.allSettled([${send(`...[p, Array.from(p)].flat()`)}]);`,
    ),
  },
  {
    name: "a read decides whether a list has a hole: the call is made either way, only whether it crosses depends on the read",
    reads: [["a long body"], [""]],
    source: inMain(
      `const body = String((await getDraft({ id: "1" })).body);\nconst p: string[] = [];\np[body.length > 3 ? 1 : 0] = "a@x.com";\nawait Promise.allSettled([${send(`...p`)}]);`,
    ),
  },
  {
    name: "a hole from Array(n), sent in a caught call",
    source: inMain(
      `const p: string[] = Array(2);\ntry {\n  await ${send(`...p`)};\n} catch {\n  await ${send(`"a@x.com"`)};\n}`,
    ),
  },
  {
    name: "an async function that returns a thenable resolves to what its then method passes on",
    source: inMain(
      `const f = async (): Promise<string> => {\n  const t = { then: (resolve: (v: string) => void) => resolve("evil@x.com") };\n  return t;\n};\nawait ${send(`await f()`)};`,
      { guarantees: `recipientsOnly(["a@x.com"])` },
    ),
  },
  {
    name: "awaiting a thenable runs its then method",
    source: inMain(
      `const t = { then: (resolve: (v: string) => void) => { void ${send(`"a@x.com"`)}; resolve("x"); } };\nconst v = await t;`,
      { guarantees: `atMostEmails(0)` },
    ),
  },
  {
    name: "a thenable's then passes on a read's result: what await gives derives from the read",
    reads: [["a@x.com"]],
    source: inMain(
      `const d = await getDraft({ id: "1" });\nconst v: string = await { then: (resolve: (value: string) => void) => { resolve(String(d.body)); } };\nawait ${send(`v`)};`,
    ),
  },
  {
    name: "a ?. that short-circuits skips the call's arguments",
    source: inMain(
      `const o: { m: (x: unknown) => void } | undefined = Math.random() > 2 ? { m: (x: unknown) => {} } : undefined;\no?.m(await ${send(`"a@x.com"`)});`,
    ),
  },
  {
    name: "a ?. skips the rest of the chain, member calls included",
    source: inMain(
      `const o: { a: { m: (x: unknown) => void } } | undefined = Math.random() > 2 ? { a: { m: (x: unknown) => {} } } : undefined;\no?.a.m(await ${send(`"a@x.com"`)});`,
    ),
  },
  {
    name: "an object with a toString that is not a function, converted: refused (it defines a hook), not an analyzer crash",
    source: inMain(`const o = { toString: "x" };\nconst s = o + "";\nawait ${send(`s`)};`),
    refused: "a toString property",
  },
  {
    name: "a record read by the name of an Object.prototype method is not a field",
    source: inMain(
      `const o: Record<string, string> = { a: String((await getDraft({ id: "1" })).body) };\nconst f = o["hasOwnProperty"];\nawait ${send(`String(f)`)};`,
    ),
  },
  {
    name: "Array(2 ** 40) throws at run time; the analysis neither crashes nor allocates it",
    source: inMain(`const n = Array(2 ** 40).length;\nawait ${send(`String(n)`)};`),
  },
  {
    name: "an array doubled 40 times by spreading: its length is not followed, the analysis does not crash",
    source: inMain(
      `let xs = ["a@x.com"];\nfor (let i = 0; i < 40; i++) xs = [...xs, ...xs];\nawait ${send(`String(xs.length > 0)`)};`,
    ),
  },
  {
    name: "an array pushed onto itself 40 times",
    source: inMain(
      `const xs = ["a@x.com"];\nfor (let i = 0; i < 40; i++) xs.push(...xs);\nawait ${send(`String(xs.length > 0)`)};`,
    ),
  },
  {
    name: "a nested array doubled 60 times (a DAG the analysis must not walk whole)",
    source: inMain(
      `let xs: unknown[] = ["a@x.com"];\nfor (let i = 0; i < 60; i++) xs = [xs, xs];\nawait ${send(`JSON.stringify(xs).slice(0, 3)`)};`,
    ),
  },
  {
    name: "top-level code throws before program(...) (Array(NaN)): no program is built, main never runs, nothing is sent",
    source: inMain(`await ${send(`"a@x.com"`)};`, {
      top: `const late = getDraft({ id: String(Array(Number("hi")).length) });\n`,
      guarantees: `recipientsOnly(["a@x.com"])`,
    }),
  },
];

import type { AdversarialCase } from "./case.js";
import { mail, prog } from "./program.js";

/** Loops nested `depth` deep, each counting to `n`: the analysis unrolls n^depth iterations. */
function nestedLoops(depth: number, n: number): string {
  let body = "x++;";
  for (let k = 0; k < depth; k++) body = `for (let i${k} = 0; i${k} < ${n}; i${k}++) { ${body} }`;
  return `let x = 0;\n    ${body}`;
}

/** Helpers f0..f(depth-1), each calling the next `fan` times: fan^depth interpreted calls. */
function callTree(depth: number, fan: number): string {
  return (
    Array.from(
      { length: depth },
      (_, k) =>
        `function f${k}(): number { ${k === depth - 1 ? "return 1;" : `${`f${k + 1}(); `.repeat(fan)}return 0;`} }`,
    ).join("\n") + "\n"
  );
}

/**
 * Small programs that keep `check` busy for long. The sound answer is a refusal with
 * analysis_budget_exceeded within a budget. Times: analysis only, one warm analyzer, two runs on
 * a shared 2-core machine (the range is load). Run with COUNTERSIGN_SLOW=1.
 */
export const costCases: AdversarialCase[] = [
  {
    name: "three nested loops of 64",
    expect: "covered",
    source: prog(nestedLoops(3, 64)),
  },
  {
    name: "a call tree of fan-out 4 and depth 10",
    expect: "budget",
    source: prog(`f0();`, { top: callTree(10, 4) }),
  },
  {
    name: "a loop of 64 over a call tree of fan-out 4 and depth 8",
    expect: "budget",
    source: prog(`for (let i = 0; i < 64; i++) f0();`, { top: callTree(8, 4) }),
  },
  {
    name: "a string grown by 10000 statements",
    expect: "budget",
    source: prog(
      `let s = "a";\n    ${Array.from({ length: 10000 }, (_, i) => `s = s + "${i}";`).join("\n    ")}\n    await sendEmail(${mail(`["me@example.com"]`, "s")});`,
    ),
  },
  {
    name: "100000 constant declarations",
    expect: "budget",
    source: prog(Array.from({ length: 100000 }, (_, i) => `const v${i} = ${i};`).join("\n    ")),
  },
  {
    // Once 10–17 s for 20 doublings (2^n walks of shared parts): joins and sources are now kept per part.
    name: "an object doubled 40 times, then joined",
    expect: "covered",
    source: prog(`let o: unknown = "x";
    for (let i = 0; i < 40; i++) o = { a: o, b: o };
    const d = await getDraft({ id: "1" });
    const p = String(d.body) === "x" ? o : [o];
    const q = [p, p].includes(p);`),
  },
  {
    name: "a recursive conditional type 999 deep",
    expect: { refused: "conditional type" },
    source: prog(`const n: Build<999>["length"] = 999;`, {
      top: `type Build<N extends number, A extends unknown[] = []> = A["length"] extends N ? A : Build<N, [...A, unknown]>;\n`,
    }),
  },
];

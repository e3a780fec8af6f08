import { prog } from "../hostile/program.js";

/**
 * Programs written to make the analysis slow (each took minutes, or ran without bound, before the
 * analysis had a budget). The budget tests assert what each one gets; the budget benchmark times
 * `countersign check` on them.
 */
const mail = (subject: string): string => `await sendEmail({ to: ["a@x.com"], subject: ${subject}, body: "b" });`;
export const lines = (n: number, line: (i: number) => string, sep = "\n"): string =>
  Array.from({ length: n }, (_, i) => line(i)).join(sep);
const loops4 =
  "for (let a = 0; a < 60; a++) for (let b = 0; b < 60; b++) for (let c = 0; c < 60; c++) for (let d = 0; d < 60; d++)";
const digits = `type D = "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9";\n`;

export const slowPrograms = {
  "four nested 60-iteration loops": prog(`let n = 0;\n    ${loops4} n++;\n    ${mail("String(n)")}`),
  "a call inside four nested 60-iteration loops": prog(`${loops4} {\n      ${mail('"s"')}\n    }`),
  "a helper call tree of depth 12, fan-out 3": prog(`await h0(1);`, {
    top:
      lines(
        12,
        (i) =>
          `async function h${i}(x: number): Promise<number> { ${i === 11 ? `${mail('"s"')} return x;` : `return (await h${i + 1}(x)) + (await h${i + 1}(x + 1)) + (await h${i + 1}(x + 2));`} }`,
      ) + "\n",
  }),
  "Promise.all of 40 × 40 helpers with loops": prog(
    `await Promise.all([${lines(40, () => `Promise.all([${lines(40, () => "h()", ", ")}])`, ", ")}]);`,
    {
      top: `async function h(): Promise<void> { for (let i = 0; i < 50; i++) ${mail('"x"')} }\n`,
    },
  ),
  "Promise.all of 40 × 40 helpers calling 8 helpers": prog(
    `await Promise.all([${lines(40, () => `Promise.all([${lines(40, () => "h()", ", ")}])`, ", ")}]);`,
    {
      top: `async function h(): Promise<void> { await Promise.all([${lines(8, () => "k()", ", ")}]); }\nasync function k(): Promise<void> { ${lines(8, (i) => mail(`"${i}"`), " ")} }\n`,
    },
  ),
  "deep recursion of helpers": prog(`await f(30);`, {
    top: `async function f(n: number): Promise<void> {\n  if (n > 0) { await f(n - 1); await f(n - 2); }\n  ${mail('"r"')}\n}\n`,
  }),
  "a string of read data doubled 40 times": prog(
    `const d = await getDraft({ id: "1" });\n    let s = \`<\${d.body}>\`;\n    for (let i = 0; i < 40; i++) s = s + s;\n    ${mail("s")}`,
  ),
  "a string tripled 40 times": prog(`let s = "ab";\n    for (let i = 0; i < 40; i++) s = s + s + s;\n    ${mail("s")}`),
  "an array literal of 60000 elements": prog(`const xs = [${lines(60000, (i) => String(i % 10), ",")}];`),
  "1500 call sites in one function": prog(lines(1500, (i) => mail(`"s${i}"`), "\n    ")),
  "a union of 12000 string literals": prog(`const x: U = "a7";`, {
    top: `type U = ${lines(12000, (i) => `"a${i}"`, " | ")};\n`,
  }),
  "object types nested 150 deep": prog(`const x: T | undefined = undefined;`, {
    top: `type T = ${"{ a: ".repeat(150)}string${" }".repeat(150)};\n`,
  }),
  "a recursive conditional type (900 levels)": prog(``, {
    top: `type Rep<S extends string, N extends unknown[] = []> = N["length"] extends 900 ? S : Rep<\`\${S}a\`, [...N, 0]>;\nconst r: Rep<"ab"> = "x";\n`,
  }),
  "a template literal union of 10^4 strings": prog(`const x: N = "0000";`, {
    top: `${digits}type N = \`\${D}\${D}\${D}\${D}\`;\n`,
  }),
  "300 small functions": prog("", {
    top: lines(300, (i) => `function f${i}(x: number): number { return x + ${i}; }`) + "\n",
  }),
} as const;

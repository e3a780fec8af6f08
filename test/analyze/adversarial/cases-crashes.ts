import type { AdversarialCase } from "./case.js";
import { mail, prog } from "./program.js";

const draft = `const d = await getDraft({ id: "1" });\n    const o: Record<string, string> = { a: String(d.body) };\n    `;

/** Programs that make the analysis (or the policy and receipt stages after it) throw. */
export const crashCases: AdversarialCase[] = [
  {
    name: "reading valueOf from an object the analysis keeps as a record",
    expect: "covered",
    source: prog(`${draft}const { valueOf: v } = o;
    await sendEmail(${mail("[String(v)]")});`),
  },
  {
    name: "reading hasOwnProperty by a literal key",
    expect: "covered",
    source: prog(`${draft}const v = o["hasOwnProperty"] ?? "me@example.com";
    await sendEmail(${mail("[v]")});`),
  },
  {
    name: "toString of a record joined with a string",
    expect: "covered",
    source: prog(`${draft}const v = String(d.body) === "x" ? o["toString"] : "me@example.com";
    await sendEmail(${mail(`[v ?? "a"]`)});`),
  },
  {
    name: "a numeric literal that overflows to Infinity",
    expect: "covered",
    source: prog(`await post({ url: "https://api.example.com/x", body: 1e309 as unknown as string });`),
  },
];

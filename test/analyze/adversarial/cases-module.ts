import type { AdversarialCase } from "./case.js";
import { mail, prog } from "./program.js";

/** The module runs before main: everything after `export default` too. */
export const moduleCases: AdversarialCase[] = [
  {
    name: "a top-level write after export default",
    expect: "covered",
    source: `${prog(`await sendEmail(${mail("[TO]")});`, { top: `let TO = "me@example.com";\n` })}const later = (TO = "boss@rival.com");\n`,
  },
  {
    name: "a top-level push after export default",
    expect: "covered",
    source: `${prog(`await sendEmail(${mail("LIST")});`, { top: `const LIST: string[] = ["me@example.com"];\n` })}const n = LIST.push("boss@rival.com");\n`,
  },
  {
    name: "a guarantee over a list a later top-level declaration changes",
    expect: "covered",
    source: `${prog(`await sendEmail(${mail(`["me@example.com"]`)});`, { top: `const ALLOWED: string[] = ["me@example.com"];\n`, guarantees: "recipientsOnly(ALLOWED)" })}const grown = ALLOWED.push("boss@rival.com");\n`,
  },
  {
    name: "a trusted call in a top-level declaration after export default",
    expect: "covered",
    source: `${prog(`await sendEmail(${mail(`["me@example.com"]`)});`, { guarantees: "atMostEmails(1)" })}const early = sendEmail(${mail(`["me@example.com"]`)});\n`,
  },
];

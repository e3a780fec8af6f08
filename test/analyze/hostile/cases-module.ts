import type { HostileCase } from "./case.js";
import { prog } from "./program.js";

const base = `import { program } from "countersign";\n`;

/** Imports, exports and the program's form. */
export const moduleCases: HostileCase[] = [
  {
    name: "a node: import",
    source: prog(``, { imports: `${base}import { readFileSync } from ⟦"node:fs";\n` }),
    code: "refused_import",
    construct: `import "node:fs"`,
  },
  {
    name: "a bare node builtin",
    source: prog(``, { imports: `${base}import { exec } from ⟦"child_process";\n` }),
    code: "refused_import",
    construct: `import "child_process"`,
  },
  {
    name: "a relative import",
    source: prog(``, { imports: `${base}import { helper } from ⟦"./helper.js";\n` }),
    code: "refused_import",
    construct: `import "./helper.js"`,
  },
  {
    name: "a package import",
    source: prog(``, { imports: `${base}import { merge } from ⟦"lodash";\n` }),
    code: "refused_import",
    construct: `import "lodash"`,
  },
  {
    name: "a look-alike trusted path",
    source: prog(``, { imports: `${base}import { sendEmail } from ⟦"trusted/email/../fs";\n` }),
    code: "refused_import",
    construct: `import "trusted/email/../fs"`,
  },
  {
    name: "a trusted module that does not exist",
    source: prog(``, { imports: `${base}import { run } from ⟦"trusted/shell";\n` }),
    code: "refused_import",
    construct: `import "trusted/shell"`,
  },
  {
    name: "a side-effect import",
    source: prog(``, { imports: `${base}⟦import "trusted/email";\n` }),
    code: "refused_import",
    construct: "side-effect import",
  },
  {
    name: "a default import of a trusted module",
    source: prog(``, { imports: `${base}import ⟦email from "trusted/email";\n` }),
    code: "refused_import",
    construct: "default import",
  },
  {
    name: "import attributes",
    source: prog(``, { imports: `${base}import { sendEmail } from "trusted/email" ⟦with { type: "json" };\n` }),
    code: "refused_import",
    construct: "import attributes",
  },
  {
    name: "import = require",
    source: prog(``, { top: `⟦import fs = require("fs");\n` }),
    code: "refused_construct",
    construct: "import =",
  },
  {
    name: "export * from",
    source: prog(``, { top: `⟦export * from "trusted/email";\n` }),
    code: "refused_construct",
    construct: "export",
  },
  {
    name: "export { x } from",
    source: prog(``, { top: `⟦export { sendEmail } from "trusted/email";\n` }),
    code: "refused_construct",
    construct: "export",
  },
  {
    name: "a named export",
    source: prog(``, { top: `⟦export const to = ["b@x.com"];\n` }),
    code: "refused_construct",
    construct: "export modifier",
  },
  {
    name: "a second default export",
    source: `${prog(``)}⟦export default program({ rationale: "second", guarantees: [], async main() {} });\n`,
    code: "invalid_program",
  },
  {
    name: "no default export (reported at the first statement)",
    source: `⟦${base}const p = program({ rationale: "x", guarantees: [], main: async () => {} });\n`,
    code: "invalid_program",
  },
  {
    name: "a default export that is not program(...)",
    source: `${base}export default ⟦{ rationale: "x", guarantees: [], async main() {} };\n`,
    code: "invalid_program",
  },
  {
    name: "export = ",
    source: `${base}⟦export = program({ rationale: "x", guarantees: [], async main() {} });\n`,
    code: "invalid_program",
  },
  {
    name: "a rationale that is computed",
    source: `${base}export default program({\n  ⟦rationale: "a" + "b",\n  guarantees: [],\n  async main() {},\n});\n`,
    code: "invalid_program",
  },
  {
    name: "a main that is not async",
    source: `${base}export default program({\n  rationale: "x",\n  guarantees: [],\n  ⟦main() { return Promise.resolve(); },\n});\n`,
    code: "invalid_program",
  },
  {
    name: "a spread into program's spec",
    source: `${base}const spec = { rationale: "x", guarantees: [], async main() {} };\nexport default program({ ⟦...spec });\n`,
    code: "invalid_program",
  },
  {
    name: "a trusted call at the top level",
    source: prog(``, { top: `⟦sendEmail({ to: ["b@x.com"], subject: "s", body: "b" });\n` }),
    code: "refused_construct",
    construct: "top-level statement",
  },
  {
    name: "an if at the top level",
    source: prog(``, { top: `⟦if (true) { }\n` }),
    code: "refused_construct",
    construct: "top-level statement",
  },
];

// Terminal output: what a program logs, returns or throws, and what a connector error echoes from
// the program's arguments, reaches the person's terminal through `countersign run`. Raw control
// characters there can set the clipboard (OSC 52), the window title, clear the screen, or reorder
// what the person reads (bidi overrides). None may reach stdout or stderr raw.
import { describe, expect, it } from "vitest";
import { program, SLOW, type Ran, useWorld } from "./world.js";

const w = useWorld();

const NASTY = "\x1b]52;c;ZXZpbA==\x07 \x1b]0;pwned\x07 \x1b[2J\x1b[H \u202egnp.exe \u2066x\u2069 \x9b31m \r\x08";

/** Raw control characters (C0 but tab and newline, DEL, C1) and bidi controls in the output, by code point. */
function controls(text: string): string[] {
  const found = new Set<string>();
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    const bad =
      (c < 0x20 && c !== 0x09 && c !== 0x0a) ||
      c === 0x7f ||
      (c >= 0x80 && c < 0xa0) ||
      (c >= 0x202a && c <= 0x202e) ||
      (c >= 0x2066 && c <= 0x2069) ||
      c === 0x200e ||
      c === 0x200f ||
      c === 0x061c;
    if (bad) found.add(`U+${c.toString(16).toUpperCase().padStart(4, "0")}`);
  }
  return [...found];
}

function expectClean(r: Ran): void {
  expect({ stdout: controls(r.stdout), stderr: controls(r.stderr) }, JSON.stringify(r)).toEqual({
    stdout: [],
    stderr: [],
  });
}

describe("countersign run, text mode", () => {
  it(
    "logs, console.error and the return value",
    async () => {
      const r = await w.run(
        program(
          `    console.log(${JSON.stringify(NASTY)});\n    console.error(${JSON.stringify(NASTY)});\n    console.log({ k: ${JSON.stringify(NASTY)} });`,
        ),
      );
      expect(r.stdout + r.stderr).toContain("pwned"); // the text itself is shown, only neutralized
      expectClean(r);
    },
    SLOW,
  );

  it(
    "an error thrown by the program",
    async () => {
      const r = await w.run(program(`    throw new Error(${JSON.stringify(NASTY)});`));
      expect(r.code).not.toBe(0);
      expectClean(r);
    },
    SLOW,
  );

  it(
    "a connector error echoing the program's argument",
    async () => {
      const r = await w.run(
        program(`    await readFile({ path: ${JSON.stringify(`${"/tmp/x"}${NASTY}`)} });`, {
          imports: `import { readFile } from "trusted/fs";`,
        }),
      );
      expect(r.code).not.toBe(0);
      expectClean(r);
    },
    SLOW,
  );

  it(
    "the rationale and a refused program's diagnostics",
    async () => {
      const refused = await w.run(
        program(`    const x: number = ${JSON.stringify(NASTY)};\n    console.log(x);`, { rationale: NASTY }),
      );
      expectClean(refused);
      const asked = await w.run(
        program(
          `    await sendEmail({ to: ["bob@example.com"], subject: ${JSON.stringify(NASTY)}, body: ${JSON.stringify(NASTY)} });`,
          { imports: `import { sendEmail } from "trusted/email";`, rationale: NASTY },
        ),
        { args: ["--timeout", "1"] },
      );
      expectClean(asked);
    },
    SLOW,
  );
});

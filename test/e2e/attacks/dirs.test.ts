// Folders: the policy lets a program write and make folders anywhere in ~/Sandbox without asking,
// and a write makes the missing folders of its file. Links inside the sandbox (a folder link, a
// dangling link, a relative link, a link to the data directory) point outside it. No folder or
// file may appear outside the sandbox, nor in the data directory, whatever the path.
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { program, SLOW, useWorld } from "./world.js";
import { CHECKPOINT_FILE } from "../../../src/store/index.js";

const policy = `default = "deny"

[[rules]]
id = "fs.list"
decision = "allow"
op = "fs.list_dir"

[[rules]]
id = "fs.write"
decision = "allow"
op = "fs.write_file"
when = { args = { path = { under = "~/Sandbox" } } }

[[rules]]
id = "fs.make-dir"
decision = "allow"
op = "fs.make_dir"
when = { args = { path = { under = "~/Sandbox" } } }
`;

const w = useWorld({ policies: () => ({ "attacks.toml": policy }) });

beforeAll(() => {
  symlinkSync(w.outside, join(w.sandbox, "link-dir"));
  symlinkSync(join(w.outside, "made-by-dangling"), join(w.sandbox, "dangling"));
  mkdirSync(join(w.sandbox, "deep"));
  symlinkSync("../../private", join(w.sandbox, "deep", "up"));
  symlinkSync(w.data, join(w.sandbox, "cs"));
});

const imports = `import { makeDir, writeFile } from "trusted/fs";`;

/** Every run's output together, for the failure message. */
async function runEach(bodies: string[]): Promise<string> {
  let all = "";
  for (const body of bodies) {
    const r = await w.run(program(body, { imports }));
    all += `--- exit ${r.code}\n${r.stdout}${r.stderr}`;
  }
  if (/^\d+:\d+: error/m.test(all)) throw new Error(`a program was refused by the analysis:\n${all}`);
  return all;
}

/**
 * What must not change: the folder outside the sandbox, HOME's entries, the data directory's
 * entries and folders (but the database, the cache and the audit checkpoint countersign itself
 * writes as it runs).
 */
function snapshot(): string {
  const list = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : null);
  const own = (name: string) => name.startsWith("countersign.db") || name === "cache" || name === CHECKPOINT_FILE;
  return JSON.stringify({
    outside: list(w.outside),
    home: list(w.home),
    data: list(w.data)?.filter((n) => !own(n)),
    policies: list(join(w.data, "policies")),
    keys: list(join(w.data, "keys")),
  });
}

describe("making folders through links that point outside the sandbox", () => {
  it(
    "make_dir and a write's missing folders through a folder link, a dangling link, a relative link and the data directory: nothing appears outside",
    async () => {
      const before = snapshot();
      const dirs = [
        "link-dir/new",
        "link-dir/a/b/c",
        "dangling",
        "dangling/sub",
        "deep/up/new",
        "cs/policies/extra",
        "cs/plugins",
      ].map((p) => join(w.sandbox, p));
      const files = [
        "link-dir/new/f.txt",
        "dangling/f.txt",
        "deep/up/x/y/f.txt",
        "cs/policies/zz-allow.toml",
        "cs/new/f.txt",
      ].map((p) => join(w.sandbox, p));
      const said = await runEach([
        dirs
          .map(
            (path) =>
              `    try { await makeDir({ path: ${JSON.stringify(path)} }); console.log("MADE " + ${JSON.stringify(path)}); } catch (e) { console.log("refused: " + String((e as { message: string }).message)); }`,
          )
          .join("\n"),
        files
          .map(
            (path) =>
              `    try { await writeFile({ path: ${JSON.stringify(path)}, content: "WRITTEN-BY-AGENT" }); console.log("WROTE " + ${JSON.stringify(path)}); } catch (e) { console.log("refused: " + String((e as { message: string }).message)); }`,
          )
          .join("\n"),
      ]);
      expect(said, said).not.toMatch(/MADE|WROTE/);
      // Each attempt ran (the policy let it through) and the host refused it, with a reason.
      expect(said.match(/^log: refused: \S/gm)?.length ?? 0, said).toBe(dirs.length + files.length);
      expect(snapshot(), said).toBe(before);
      expect(existsSync(join(w.outside, "made-by-dangling")), said).toBe(false);
    },
    SLOW,
  );

  it(
    "dot segments, doubled slashes and NUL: nothing outside the sandbox is made",
    async () => {
      const before = snapshot();
      const paths = [
        `${w.sandbox}/../private/dots`,
        `${w.sandbox}/a/../../private/up`,
        `${w.sandbox}//..//private/slashes`,
        `${w.sandbox}/./../private/dot`,
        `${w.sandbox}/a\u0000/../../private/nul`,
        `${w.sandbox}/trailing/`,
      ];
      const said = await runEach(
        paths.map(
          (path) => `    try { await makeDir({ path: ${JSON.stringify(path)} }); } catch {}
    try { await writeFile({ path: ${JSON.stringify(`${path}/deeper/f.txt`)}, content: "WRITTEN-BY-AGENT" }); } catch {}`,
        ),
      );
      expect(snapshot(), said).toBe(before);
      expect(
        readdirSync(w.sandbox).filter((n) => ["a", "trailing"].includes(n)),
        said,
      ).toEqual([]);
    },
    SLOW,
  );
});

describe("folders inside the sandbox", () => {
  it(
    "a write makes its missing folders and says which; make_dir makes a folder once",
    async () => {
      const file = join(w.sandbox, "reports", "2026", "11", "summary.txt");
      const folder = join(w.sandbox, "archive", "old");
      const said = await runEach([
        `    const w = await writeFile({ path: ${JSON.stringify(file)}, content: "done" });
    console.log("WRITE " + JSON.stringify(w));
    const a = await makeDir({ path: ${JSON.stringify(folder)} });
    console.log("FIRST " + JSON.stringify(a));
    const b = await makeDir({ path: ${JSON.stringify(folder)} });
    console.log("AGAIN " + JSON.stringify(b));`,
      ]);
      // The program's console lines come on stderr, each as `log: <text>`.
      const line = (tag: string) =>
        JSON.parse(
          said
            .split("\n")
            .find((l) => l.startsWith(`log: ${tag} `))!
            .slice(`log: ${tag} `.length),
        ) as unknown;
      expect(line("WRITE"), said).toEqual({
        path: file,
        bytes: 4,
        made_dirs: [
          join(w.sandbox, "reports"),
          join(w.sandbox, "reports", "2026"),
          join(w.sandbox, "reports", "2026", "11"),
        ],
      });
      expect(line("FIRST"), said).toEqual({
        path: folder,
        made: true,
        made_dirs: [join(w.sandbox, "archive"), folder],
      });
      expect(line("AGAIN"), said).toEqual({ path: folder, made: false, made_dirs: [] });
      expect(statSync(folder).isDirectory()).toBe(true);
    },
    SLOW,
  );

  it(
    "a file on the way is named in the refusal, and nothing is made",
    async () => {
      const said = await runEach([
        `    try { await writeFile({ path: ${JSON.stringify(join(w.sandbox, "notes.txt", "sub", "f.txt"))}, content: "x" }); } catch (e) { console.log("ERR " + String((e as { message: string }).message)); }`,
      ]);
      expect(said).toContain(
        `log: ERR fs: ${join(w.sandbox, "notes.txt", "sub", "f.txt")}: ${join(w.sandbox, "notes.txt")} exists and is not a folder`,
      );
      expect(existsSync(join(w.sandbox, "sub"))).toBe(false);
    },
    SLOW,
  );
});

// `countersign check` through a running authority loads what it needs to send the program and
// print the answer: never the database drivers, the stores, jose, the connector host or the
// compiler (the authority has them). A regression here shows as a slower check, so it is pinned
// by the modules a real process loads rather than by time.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { example, startTestAuthority, type TestAuthority } from "../authority/harness.js";

const BIN = fileURLToPath(new URL("../../src/cli/bin.ts", import.meta.url));

// A loader hook that writes every module URL the process loads to $LOADED_LOG.
const HOOK = `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_LOG, url + "\\n");
  return next(url, context);
}`;

// zod (~100 ms with its locales) and the model's schema modules (~80 ms more): the model's
// zod-free modules are the only ones of that folder `check` may load.
const HEAVY = [
  /\/node_modules\/(pg|pg-[a-z]+|better-sqlite3|jose|typescript6|@extism|zod)\//,
  /\/src\/store\/(store|sqlite-driver|postgres-driver|open-store)\./,
  /\/src\/(connector|app|policy|receipt|analyze\/index)\b/,
  /\/src\/model\/(?!(errors-plain|paths|program-bytes|visible-text)\.)/,
];

describe("countersign check through a running authority", () => {
  let authority: TestAuthority;
  let dir: string;
  beforeAll(async () => {
    authority = await startTestAuthority("sqlite");
    dir = mkdtempSync(join(tmpdir(), "countersign-check-light-"));
    writeFileSync(join(dir, "hook.mjs"), HOOK);
    writeFileSync(
      join(dir, "register.mjs"),
      `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(join(dir, "hook.mjs")).href)});`,
    );
  }, 120_000);
  afterAll(async () => authority?.close());

  it("answers from the authority without loading zod, the model's schemas, the stores, drivers, jose or the compiler", async () => {
    const file = join(dir, "read-notes.ts");
    writeFileSync(file, example("read-notes.ts"));
    const log = join(dir, "loaded.log");
    writeFileSync(log, "");
    const env = {
      ...process.env,
      COUNTERSIGN_HOME: join(dir, "home"),
      COUNTERSIGN_URL: authority.url,
      COUNTERSIGN_TOKEN: authority.token,
      LOADED_LOG: log,
    };
    // not spawnSync: the authority answers from this process's event loop
    const run = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--import", join(dir, "register.mjs"), BIN, "check", file, "--json"],
      { env, encoding: "utf8", timeout: 120_000 },
    );
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, decision: { kind: "auto_approved" } });
    const loaded = readFileSync(log, "utf8")
      .split("\n")
      .filter((u) => u.startsWith("file:"));
    expect(loaded.some((u) => u.includes("/src/cli/check."))).toBe(true); // the hook saw the command load
    expect(loaded.filter((u) => HEAVY.some((re) => re.test(u)))).toEqual([]);
  }, 120_000);
});

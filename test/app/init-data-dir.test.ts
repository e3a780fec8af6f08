// The data directory at start: made once, then never written again where a file exists; a
// directory that cannot be written is named as read-only, before anything tries to write there.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { initDataDir } from "../../src/app/index.js";
import { main } from "../../src/cli/main.js";
import type { Io } from "../../src/cli/command.js";
import { fileKeyStore, openStore, type Store } from "../../src/store/index.js";
import { tmpfs } from "../support/tmpfs.js";

const asRoot = process.getuid?.() === 0;

/** Every path under `dir` with its modification time (ns) and, for a file, its bytes. */
function snapshot(dir: string): Map<string, string> {
  const seen = new Map<string, string>();
  const walk = (path: string): void => {
    const stat = statSync(path, { bigint: true });
    seen.set(path, `${stat.mtimeNs}:${stat.mode}:${stat.isDirectory() ? "dir" : readFileSync(path, "base64")}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
  return seen;
}

/** `database`: default the data directory's own SQLite file. */
async function init(dataDir: string, database?: string): Promise<{ created: string[] }> {
  let store: Store | undefined;
  try {
    const open = () => openStore({ dataDir, ...(database === undefined ? {} : { database }) });
    return await initDataDir({
      dataDir,
      keys: fileKeyStore(dataDir),
      now: () => new Date(),
      store: async () => (store ??= await open()),
    });
  } finally {
    await store?.close();
  }
}

/** `countersign serve` in this process, on `dataDir`: what it printed and its exit code (it stops before serving here). */
async function serve(dataDir: string): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  const io: Io = {
    env: { COUNTERSIGN_HOME: dataDir, HOME: tmpdir() },
    cwd: tmpdir(),
    stdout: () => undefined,
    stderr: (t) => void (stderr += t),
    readStdin: async () => "",
  };
  const code = await main(["serve", "--port", "0", "--workers", "1"], io);
  return { code, stderr };
}

const mounts: { unmount(): void }[] = [];
afterAll(() => {
  for (const m of mounts) m.unmount();
});

/** A directory this process cannot write: a read-only tmpfs as root (root ignores modes), mode 0555 otherwise; `fill` runs before. */
async function readOnlyDir(fill: (dir: string) => Promise<unknown>): Promise<string> {
  if (asRoot) {
    const fs = tmpfs("16m");
    mounts.push(fs);
    await fill(fs.dir);
    fs.remount("ro");
    return fs.dir;
  }
  const dir = join(mkdtempSync(join(tmpdir(), "countersign-ro-")), "data");
  await fill(dir);
  chmodSync(dir, 0o555);
  return dir;
}

describe("the data directory at start", () => {
  it("is made once; a second start writes nothing, not even a temporary file beside what exists", async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), "countersign-init-")), "data");
    const database = join(mkdtempSync(join(tmpdir(), "countersign-init-db-")), "countersign.db"); // elsewhere: opening a store writes its own files
    const first = await init(dataDir, database);
    expect(first.created).toEqual(
      expect.arrayContaining([
        join(dataDir, "approver.secret"),
        join(dataDir, "submitter.token"),
        join(dataDir, "connections.toml"),
      ]),
    );
    const before = snapshot(dataDir);
    const second = await init(dataDir, database);
    expect(second.created).toEqual([]);
    const after = snapshot(dataDir);
    for (const [path, state] of before) expect([path, after.get(path)]).toEqual([path, state]);
  });

  it("an empty read-only data directory: serve says it is read-only, naming it", async () => {
    const dataDir = await readOnlyDir(async () => undefined);
    const { code, stderr } = await serve(dataDir);
    expect(code).not.toBe(0);
    expect(stderr).toContain("config_error");
    expect(stderr).toContain(`the data directory ${dataDir} is read-only`);
    expect(stderr).not.toMatch(/unable to open database file/);
  });

  it("a read-only data directory made before: serve says it is read-only and no file in it changes", async () => {
    let before = new Map<string, string>();
    const dataDir = await readOnlyDir(async (dir) => {
      await init(dir);
      before = snapshot(dir);
    });
    if (!asRoot) before.set(dataDir, snapshot(dataDir).get(dataDir)!); // the chmod changed the directory's own mode
    const { code, stderr } = await serve(dataDir);
    expect(code).not.toBe(0);
    expect(stderr).toContain(`the data directory ${dataDir} is read-only`);
    expect(stderr).not.toMatch(/approver\.secret|unable to open/);
    expect(snapshot(dataDir)).toEqual(before);
  });
});

// A real PostgreSQL for the tests and the benchmark: one cluster per test run, started on
// loopback in the run's temp folder by the first test that needs it (initdb + pg_ctl), and
// stopped by the global teardown. No PostgreSQL installed is an error, never a skipped test.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";

/** The server binaries: the newest /usr/lib/postgresql/<v>/bin (Debian), else initdb on PATH. */
function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions[0] !== undefined) return join(root, versions[0], "bin");
  try {
    return execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim();
  } catch {
    throw new Error(
      "PostgreSQL is not installed (no /usr/lib/postgresql/<version>/bin/initdb, no pg_config): install it with `apt-get install -y postgresql`",
    );
  }
}

/** initdb and postgres refuse to run as root: there, run them as the postgres system user. */
function asServerUser(command: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  execFileSync(asRoot ? "runuser" : command, asRoot ? ["-u", "postgres", "--", command, ...args] : args, {
    stdio: "pipe",
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no free port");
  return address.port;
}

/** Let the postgres user pass through (not list) the folders above its cluster: temp folders are 0700. */
function traversable(dir: string): void {
  for (let d = dir; d !== dirname(d); d = dirname(d)) {
    const mode = statSync(d).mode & 0o777;
    if ((mode & 0o001) === 0) chmodSync(d, mode | 0o011);
  }
}

/** Create and start a cluster in `dir` (which must not exist yet); answers its port. */
export async function startCluster(dir: string, settings: string[] = []): Promise<number> {
  mkdirSync(dir, { mode: 0o700 });
  if (process.getuid?.() === 0) {
    traversable(dirname(dir));
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }));
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }));
    chownSync(dir, uid, gid);
  }
  asServerUser(join(binDir(), "initdb"), [
    "-D",
    join(dir, "data"),
    "-U",
    "postgres",
    "--auth=trust",
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
  ]);
  const port = await freePort();
  runCluster(dir, port, settings);
  return port;
}

/** Start the cluster of `dir` (again) on `port`, listening on loopback and a socket in `dir` only. */
export function runCluster(dir: string, port: number, settings: string[] = []): void {
  const options = [
    "-h 127.0.0.1",
    `-p ${port}`,
    `-k ${dir}`,
    "-c max_connections=300",
    ...settings.map((s) => `-c ${s}`),
  ].join(" ");
  asServerUser(join(binDir(), "pg_ctl"), [
    "-D",
    join(dir, "data"),
    "-l",
    join(dir, "server.log"),
    "-w",
    "-t",
    "60",
    "-o",
    options,
    "start",
  ]);
}

export function stopCluster(dir: string): void {
  const data = join(dir, "data");
  if (existsSync(join(data, "postmaster.pid")))
    asServerUser(join(binDir(), "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
}

/** The run's shared cluster lives here (the run's temp folder, see test/global-setup.ts). */
export function sharedClusterDir(): string {
  return join(tmpdir(), "postgres");
}

/** Start the shared cluster once per run, whichever test file asks first; the others wait for it. */
async function sharedPort(): Promise<number> {
  const dir = sharedClusterDir();
  const portFile = join(dir, "..", "postgres.port");
  const failedFile = join(dir, "..", "postgres.failed");
  let starter = true;
  try {
    mkdirSync(`${dir}.lock`);
  } catch {
    starter = false;
  }
  if (starter) {
    try {
      const port = await startCluster(dir, ["fsync=off"]);
      writeFileSync(`${portFile}.tmp`, String(port));
      renameSync(`${portFile}.tmp`, portFile);
    } catch (err) {
      const message =
        err instanceof Error ? `${err.message}\n${(err as { stderr?: Buffer }).stderr?.toString() ?? ""}` : String(err);
      writeFileSync(failedFile, message);
      throw err;
    }
  }
  for (let waited = 0; waited < 120_000; waited += 100) {
    if (existsSync(portFile)) return Number(readFileSync(portFile, "utf8"));
    if (existsSync(failedFile))
      throw new Error(`the test PostgreSQL did not start: ${readFileSync(failedFile, "utf8")}`);
    await sleep(100);
  }
  throw new Error("the test PostgreSQL did not start within 120 s");
}

/** A fresh, empty database on the run's cluster: its URL. */
export async function freshDatabase(port?: number): Promise<string> {
  const p = port ?? (await sharedPort());
  const name = `t_${Math.random().toString(36).slice(2, 12)}`;
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${p}/postgres` });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return `postgres://postgres@127.0.0.1:${p}/${name}`;
}

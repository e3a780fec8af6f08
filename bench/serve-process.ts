// The authority as its own process for the benchmarks: `countersign serve` on a fresh data
// directory, or any script that prints its URL.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packageRoot } from "../src/model/paths.js";

export const BIN = join(packageRoot, "bin", "countersign.js");

/** A child process that prints its URL on a line of its own; answers the URL. */
export async function startProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  pattern: RegExp,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const match = pattern.exec(out);
      if (match !== null) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited (${code}): ${err}`)));
  });
  return { url, child };
}

export async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** An authority on `home` (default a fresh one); `database` as for --database. */
export async function authority(
  database?: string,
  home = mkdtempSync(join(tmpdir(), "countersign-bench-authority-")),
): Promise<{ url: string; child: ChildProcess; token: string; home: string }> {
  const env = { HOME: home, COUNTERSIGN_HOME: join(home, ".countersign") };
  const args = [BIN, "serve", "--port", "0", ...(database === undefined ? [] : ["--database", database])];
  const { url, child } = await startProcess(args, env, /countersign authority at (http:\/\/\S+)/);
  return { url, child, home, token: readFileSync(join(env.COUNTERSIGN_HOME, "submitter.token"), "utf8").trim() };
}

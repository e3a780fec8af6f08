// Child store processes (test/store/child.ts) for the tests that need real parallelism.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("./child.ts", import.meta.url));

export interface Child {
  process: ChildProcessWithoutNullStreams;
  /** Every JSON line printed so far, after "ready". */
  lines: unknown[];
  ready: Promise<void>;
  go(): void;
  exited: Promise<number | null>;
}

export function spawnChild(job: Record<string, unknown>): Child {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, JSON.stringify(job)], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: unknown[] = [];
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => void (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const value: unknown = JSON.parse(line);
      if (value === "ready") resolve();
      else lines.push(value);
    });
    void exited.then((code) => reject(new Error(`child exited (${code}) before it was ready: ${stderr}`)));
  });
  return { process: child, lines, ready, exited, go: () => child.stdin.write("go\n") };
}

/** Run the children's work at the same moment; answers every line they printed, once they exited. */
export async function runTogether(children: Child[]): Promise<unknown[][]> {
  await Promise.all(children.map((c) => c.ready));
  for (const c of children) c.go();
  const codes = await Promise.all(children.map((c) => c.exited));
  if (codes.some((code) => code !== 0)) throw new Error(`a child failed: exit codes ${codes.join(", ")}`);
  return children.map((c) => c.lines);
}

// `countersign serve` as a real process (from the sources, through tsx), for the tests that kill
// it, restart it, or run two of them on one database.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../src/cli/bin.ts", import.meta.url));

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  /** SIGKILL: no shutdown code runs, as in a crash. */
  kill(): Promise<void>;
  /** SIGTERM: a clean stop. */
  stop(): Promise<number | null>;
}

export async function startServe(env: NodeJS.ProcessEnv, args: string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", BIN, "serve", "--port", "0", "--workers", "1", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in time: ${err}`)), 60_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const match = /countersign authority at (http:\/\/\S+)/.exec(out);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before it was ready: ${err}`));
    });
  });
  return {
    child,
    url,
    stderr: () => err,
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

/** A JSON call to a serve process. */
export async function callServe(
  url: string,
  method: string,
  path: string,
  options: { token?: string; cookie?: string; csrf?: string; body?: unknown } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie !== undefined) headers.cookie = options.cookie;
  if (options.csrf !== undefined) headers["x-csrf-token"] = options.csrf;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(url + path, {
    method,
    headers,
    redirect: "manual",
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, body };
}

/** Log in to a serve process with a fresh link from its data directory. */
export async function loginServe(url: string, link: string): Promise<{ cookie: string; csrf: string }> {
  const response = await fetch(`${url}/login?link=${link}`, { redirect: "manual" });
  if (response.status !== 303) throw new Error(`login refused: ${response.status} ${await response.text()}`);
  const cookies = response.headers.getSetCookie().map((c) => c.split(";")[0]!);
  return { cookie: cookies.join("; "), csrf: cookies.find((c) => c.startsWith("countersign_csrf="))!.split("=")[1]! };
}

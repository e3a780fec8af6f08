// The README's local OAuth walk-through ("Connect a real mailbox"), command by command as a new user
// types it: the Gmail-shaped example server with its OAuth server, `countersign serve`, `connect`
// (the browser step done by fetching the printed URL), `run` of read-inbox.ts and of
// follow-the-mail.ts. The commands are read from the README, so that it stays true; only the fixed
// ports become free ones and `npx countersign` the built CLI. Waits are stall guards.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/model/paths.js";
import { openStore } from "../../src/store/index.js";

const CLI = join(packageRoot, "bin", "countersign.js");
const TSX = join(packageRoot, "node_modules", "tsx", "dist", "cli.mjs");
const STALL_MS = 120_000;

/** The shell commands of the README's fenced `sh` blocks in the walk-through, in order. */
function walkThrough(): string[] {
  const readme = readFileSync(join(packageRoot, "README.md"), "utf8");
  const start = readme.indexOf("To try all of it on this machine first");
  const end = readme.indexOf("test/e2e/readme-oauth.test.ts", start);
  expect(start, "the README's walk-through").toBeGreaterThan(0);
  const blocks = [...readme.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.flatMap((b) => b.split("\n").filter((line) => line.trim() !== ""));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Started {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

let home: string;
let data: string;
let ports: Record<string, string>;
const started: Started[] = [];

/** One README command as a process: `npx countersign` is the built CLI, `npx tsx` node with tsx; example paths are the clone's. */
function start(command: string): Started {
  let words = command.split(/\s+/);
  for (const [fixed, free] of Object.entries(ports))
    words = words.map((w) => w.replaceAll(`127.0.0.1:${fixed}`, `127.0.0.1:${free}`));
  const [npx, tool, ...rest] = words;
  expect(npx).toBe("npx");
  const args = rest.map((w) => (w.startsWith("examples/") ? join(packageRoot, w) : w));
  const argv = tool === "countersign" ? [CLI, ...args] : tool === "tsx" ? [TSX, ...args] : [];
  expect(argv.length, `a command the test knows: ${command}`).toBeGreaterThan(0);
  if (tool === "tsx" && args[0]?.endsWith("gmail-server/main.ts"))
    argv.push("--port", ports["8025"]!, "--oauth-port", ports["8026"]!);
  const child = spawn(process.execPath, argv, {
    cwd: home,
    env: {
      ...process.env,
      HOME: home,
      COUNTERSIGN_HOME: data,
      COUNTERSIGN_URL: "",
      COUNTERSIGN_TOKEN: "",
      COUNTERSIGN_DATABASE: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const s = { child, out: () => out, exited };
  started.push(s);
  return s;
}

async function until(s: Started, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  const deadline = Date.now() + STALL_MS;
  for (;;) {
    const match = pattern.exec(s.out());
    if (match !== null) return match;
    if (s.child.exitCode !== null || Date.now() > deadline) throw new Error(`no ${what}: ${s.out()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "countersign-readme-oauth-"));
  data = join(home, ".countersign");
  ports = { "8025": String(await freePort()), "8026": String(await freePort()) };
});

afterAll(async () => {
  for (const s of started) if (s.child.exitCode === null) s.child.kill("SIGINT");
  await Promise.all(started.map((s) => s.exited));
  rmSync(home, { recursive: true, force: true });
});

describe("the README's local OAuth walk-through", () => {
  it("connects through the OAuth flow, reads the mailbox, and asks before following the injected mail", {
    timeout: 6 * STALL_MS,
  }, async () => {
    const [server, connect, readInbox, follow, ...more] = walkThrough();
    expect(more).toEqual([]);
    expect(server).toMatch(/^npx tsx examples\/gmail-server\/main\.ts --oauth /);
    expect(connect).toMatch(/^npx countersign connect email /);
    expect(readInbox).toBe("npx countersign run examples/read-inbox.ts");
    expect(follow).toMatch(/^npx countersign run examples\/follow-the-mail\.ts --detach$/);

    const gmail = start(server!);
    await until(gmail, /Ctrl-C to stop/, "start of the example servers");
    const secretFile = join(home, server!.split(" ").at(-1)!);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);

    const serve = start("npx countersign serve --port 0");
    await until(serve, /countersign authority at http:\/\/\S+/, "authority");

    // The person opens the printed URL; the demo consent page sends the browser straight back.
    const connecting = start(connect!);
    const [url] = await until(connecting, /http:\/\/127\.0\.0\.1:\d+\/o\/oauth2\/v2\/auth\?\S+/, "authorization URL");
    expect((await fetch(url!)).status).toBe(200);
    expect(await connecting.exited, connecting.out()).toBe(0);
    expect(connecting.out()).toContain("connected email");
    const refreshFile = join(data, "credentials", "email.refresh-token");
    expect(statSync(refreshFile).mode & 0o777).toBe(0o600);
    const connections = readFileSync(join(data, "connections.toml"), "utf8");
    expect(connections).toMatch(/\[email\.oauth\]/);
    expect(connections).toContain(`base_url = "http://127.0.0.1:${ports["8025"]}"`);
    const accessToken = (
      JSON.parse(readFileSync(join(data, "credentials", "email.access-token.json"), "utf8")) as { access_token: string }
    ).access_token;
    const refreshToken = readFileSync(refreshFile, "utf8").trim();

    const read = start(readInbox!);
    expect(await read.exited, read.out()).toBe(0);
    expect(read.out()).toContain("policy: auto_approved");
    for (const subject of ["Lunch on Thursday?", "Invoice 2026-114", "Action required: mailbox rule"])
      expect(read.out()).toContain(subject);

    const following = start(follow!);
    expect(await following.exited, following.out()).toBe(7); // pending: a person decides
    expect(following.out()).toContain("policy: ask (email.untrusted-recipients)");
    expect(following.out()).toMatch(/pending: req_/);

    // Nothing was sent; no token shows in any output, the audit or the store.
    gmail.child.kill("SIGINT");
    await gmail.exited;
    expect(gmail.out()).not.toMatch(/^sent /m);
    const secrets = [accessToken, refreshToken, readFileSync(secretFile, "utf8").trim()];
    for (const s of started) for (const secret of secrets) expect(s.out()).not.toContain(secret);
    const store = await openStore({ dataDir: data });
    try {
      const audit: unknown[] = [];
      for await (const entry of store.exportAudit()) audit.push(entry);
      for (const secret of secrets) expect(JSON.stringify(audit)).not.toContain(secret);
    } finally {
      await store.close();
    }
    for (const file of readdirSync(data))
      if (file.startsWith("countersign.db"))
        for (const secret of secrets) expect(readFileSync(join(data, file), "latin1")).not.toContain(secret);
  });
});

// The loopback world of the adversarial suite: HTTP sinks that record every request as it
// arrived, the Gmail-shaped provider, a temp HOME with a sandbox and files outside it, a real
// `countersign serve` process, and `countersign run` / `countersign mcp` processes from dist/
// (run `npm run build` first). The cases assert on what the world received, never on error codes,
// so that they hold whichever mechanism a fix uses.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startGmailServer, type GmailServer } from "../../../examples/gmail-server/gmail-server.js";
import { makeLoginLink } from "../../../src/app/index.js";
import { afterAll, beforeAll } from "vitest";

export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
export const BIN = join(ROOT, "bin", "countersign.js");
/** A test spawning a few CLI processes on a loaded machine: generous, never a speed assertion. */
export const SLOW = 240_000;

if (!existsSync(join(ROOT, "dist", "src", "cli", "bin.js")))
  throw new Error("the attack suite runs the built CLI: run `npm run build` first");

export interface Arrived {
  method: string;
  /** The request target exactly as it came on the wire: path and query, nothing decoded. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Sink {
  /** 127.0.0.1:port, as allowlists and policies spell it. */
  host: string;
  origin: string;
  received: Arrived[];
  /** Answer `path` (exact request target) with a redirect. */
  redirect(path: string, status: number, location: string): void;
  /** Answer `path` with this body (200, text/plain). */
  serve(path: string, body: string): void;
  /**
   * Hold the answer to `path` until `release()`: `arrived` settles when the request came,
   * `answered` once the answer was written out.
   */
  hold(path: string): { arrived: Promise<void>; answered: Promise<void>; release(): void };
  close(): Promise<void>;
}

export async function startSink(): Promise<Sink> {
  const received: Arrived[] = [];
  const redirects = new Map<string, { status: number; location: string }>();
  const bodies = new Map<string, string>();
  const holds = new Map<string, { came(): void; gate: Promise<void>; done(): void }>();
  const server = createServer(async (req, res) => {
    const url = req.url ?? "";
    received.push({ method: req.method ?? "", url, headers: req.headers, body: (await bodyOf(req)).toString("utf8") });
    const held = holds.get(url);
    if (held !== undefined) {
      holds.delete(url);
      held.came();
      await held.gate;
      res.on("finish", held.done);
    }
    const hop = redirects.get(url);
    if (hop !== undefined) {
      res.writeHead(hop.status, { location: hop.location, "content-length": "0" }).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/plain" }).end(bodies.get(url) ?? "ok");
  });
  // Node's parser refuses some targets before the handler runs; what it refused never arrived.
  server.on("clientError", (_err, socket) => socket.destroy());
  const { port, close } = await onLoopback(server);
  return {
    host: `127.0.0.1:${port}`,
    origin: `http://127.0.0.1:${port}`,
    received,
    redirect: (path, status, location) => void redirects.set(path, { status, location }),
    serve: (path, body) => void bodies.set(path, body),
    hold: (path) => {
      let came!: () => void;
      let release!: () => void;
      let done!: () => void;
      const arrived = new Promise<void>((r) => (came = r));
      const gate = new Promise<void>((r) => (release = r));
      const answered = new Promise<void>((r) => (done = r));
      holds.set(path, { came, gate, done });
      return { arrived, answered, release };
    },
    close,
  };
}

/** A request's body, whole. */
async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Listen on a free port of 127.0.0.1: the port, and how to close the server with its open connections. */
async function onLoopback(server: Server): Promise<{ port: number; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A recording tap in front of the Gmail-shaped provider: the email connection points here, every
 * request is recorded as it arrived and forwarded. The provider records only a message's To
 * header; the tap sees the whole RFC 5322 message, so Cc and Bcc (or an injected header) count.
 */
export interface MailTap extends Sink {
  /** Every recipient of every message the provider was asked to send (To, Cc, Bcc), as written. */
  recipients(): string[];
  /** Call `act` with each request that arrives from now on, before it is forwarded (the attacker's moment); `undefined` stops it. */
  beforeForward(act: ((method: string, url: string) => void) | undefined): void;
}

export async function startMailTap(providerUrl: string): Promise<MailTap> {
  const received: Arrived[] = [];
  let before: ((method: string, url: string) => void) | undefined;
  const server = createServer(async (req, res) => {
    const body = await bodyOf(req);
    received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: body.toString("utf8") });
    before?.(req.method ?? "", req.url ?? "");
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === "string" && name !== "host" && name !== "content-length") headers[name] = value;
    const answer = await fetch(providerUrl + (req.url ?? "/"), {
      method: req.method ?? "GET",
      headers,
      ...(body.length === 0 ? {} : { body }),
      redirect: "manual",
    });
    const text = Buffer.from(await answer.arrayBuffer());
    res
      .writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" })
      .end(text);
  });
  const { port, close } = await onLoopback(server);
  return {
    host: `127.0.0.1:${port}`,
    origin: `http://127.0.0.1:${port}`,
    received,
    redirect: () => undefined,
    serve: () => undefined,
    hold: () => {
      throw new Error("the mail tap holds nothing");
    },
    beforeForward: (act) => {
      before = act;
    },
    recipients: () => {
      const out: string[] = [];
      for (const a of received) {
        if (a.method !== "POST" || !/\/(messages|drafts)\/send$/.test(a.url.split("?")[0]!)) continue;
        let raw: unknown;
        try {
          const json = JSON.parse(a.body) as { raw?: unknown; message?: { raw?: unknown } };
          raw = json.raw ?? json.message?.raw;
        } catch {}
        if (typeof raw !== "string") continue;
        const text = Buffer.from(raw, "base64url").toString("utf8");
        const head = text.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, " ");
        for (const line of head.split(/\r?\n/)) {
          const m = /^(to|cc|bcc)\s*:(.*)$/i.exec(line);
          if (m !== null)
            out.push(
              ...m[2]!
                .split(",")
                .map((x) => x.trim())
                .filter((x) => x !== ""),
            );
        }
      }
      return out;
    },
    close,
  };
}

/**
 * The mailbox an address string delivers to, as a lenient mail system reads it: the address in
 * angle brackets if any, quotes dropped, lower case, no trailing dot, no +tag.
 */
export function mailbox(address: string): string {
  let a = address.trim();
  const angle = /<([^>]*)>/.exec(a);
  if (angle !== null) a = angle[1]!;
  a = a.replaceAll('"', "").trim().toLowerCase();
  const at = a.lastIndexOf("@");
  if (at < 0) return a;
  const local = a.slice(0, at).split("+")[0]!;
  const domain = a.slice(at + 1).replace(/\.+$/, "");
  return `${local}@${domain}`;
}

/** What arrived, one line each, for failure messages. */
export function shown(arrived: readonly Arrived[]): string {
  return arrived.length === 0
    ? "(nothing)"
    : arrived.map((a) => `${a.method} ${a.url} ${JSON.stringify(a.body).slice(0, 200)}`).join("\n");
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The process was still running at the bound and was killed. */
  killed: boolean;
}

export interface Running {
  child: ChildProcess;
  done: Promise<Ran>;
  stdout(): string;
  stderr(): string;
}

export interface WorldOptions {
  /** Policy files for `<data>/policies`, by file name; none: the shipped policy. */
  policies?: (w: World) => Record<string, string>;
  /** The text of connections.toml; default: email at the provider, fs at ~/Sandbox, http to the sinks. */
  connections?: (w: World) => string;
  sinks?: number;
}

export interface World {
  home: string;
  data: string;
  sandbox: string;
  /** A folder in HOME but outside the sandbox, with a file `secret.txt`. */
  outside: string;
  gmail: GmailServer;
  /** The email connection's base_url by default: records every message whole. */
  mail: MailTap;
  gmailToken: string;
  sinks: Sink[];
  serveUrl: string;
  env: NodeJS.ProcessEnv;
  /** Start `countersign <args>` from dist/ in this world; killed after `boundMs`. */
  start(args: string[], options?: { stdin?: string; boundMs?: number; env?: NodeJS.ProcessEnv }): Running;
  /** `countersign run -` with the program on stdin. */
  run(source: string, options?: { args?: string[]; boundMs?: number }): Promise<Ran>;
  /** A person's approver session: login link, session cookie and CSRF token. */
  login(): Promise<{ cookie: string; csrf: string }>;
  /** The request id once a run printed its review URL (null if the run ended first). */
  reviewed(running: Running): Promise<string | null>;
  /** POST a decision as a person would, after opening the request page. */
  decide(id: string, body: Record<string, string>): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

const MARK = "countersign authority at ";

/** A rule allowing `op` on URLs below `prefix` (TOML). */
export const allowUrlsUnder = (prefix: string, op = "http.*", id = "http.s1-public") =>
  `[[rules]]\nid = "${id}"\ndecision = "allow"\nop = "${op}"\nwhen = { args = { url = { prefix = "${prefix}" } } }\n`;

/**
 * A policy denying all but reading and listing any file, writing below `writesUnder` and posting
 * to the sink at `sinkOrigin`: what a program needs to carry a file's contents out.
 */
export const readWriteAndPost = (sinkOrigin: string, writesUnder: string) => `default = "deny"

[[rules]]
id = "fs.read"
decision = "allow"
op = "fs.read_file"

[[rules]]
id = "fs.list"
decision = "allow"
op = "fs.list_dir"

[[rules]]
id = "fs.write"
decision = "allow"
op = "fs.write_file"
when = { args = { path = { under = "${writesUnder}" } } }

${allowUrlsUnder(`${sinkOrigin}/`, "http.post", "http.sink")}`;

/**
 * The world of one test file (or describe block): started before its tests, closed after them.
 * The value stands for it from then on; read it inside tests and hooks only.
 */
export function useWorld(options: WorldOptions = {}): World {
  let started: World | undefined;
  beforeAll(async () => {
    started = await startWorld(options);
  }, 120_000);
  afterAll(async () => {
    await started?.close();
  });
  return new Proxy({} as World, {
    get: (_target, key) => {
      if (started === undefined)
        throw new Error("the world is started before the tests: read it inside a test or a hook");
      return Reflect.get(started, key);
    },
  });
}

export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const home = mkdtempSync(join(tmpdir(), "countersign-attacks-"));
  const data = join(home, ".countersign");
  const sandbox = join(home, "Sandbox");
  const outside = join(home, "private");
  mkdirSync(data, { mode: 0o700 });
  mkdirSync(sandbox);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "OUTSIDE-SECRET-9f3c\n");
  writeFileSync(join(sandbox, "notes.txt"), "inside the sandbox\n");
  const gmailToken = "gmail-token-SECRET-5ab1";
  const gmail = await startGmailServer({ token: gmailToken });
  writeFileSync(join(data, "gmail-token"), gmailToken, { mode: 0o600 });
  const mail = await startMailTap(gmail.url);
  const sinks: Sink[] = [];
  for (let i = 0; i < (options.sinks ?? 1); i++) sinks.push(await startSink());
  const env: NodeJS.ProcessEnv = {
    HOME: home,
    COUNTERSIGN_HOME: data,
    COUNTERSIGN_URL: "",
    COUNTERSIGN_TOKEN: "",
    COUNTERSIGN_DATABASE: "",
    NO_COLOR: "1",
  };
  const children = new Set<ChildProcess>();

  const world = { home, data, sandbox, outside, gmail, mail, gmailToken, sinks, env, serveUrl: "" } as World;
  const connections =
    options.connections?.(world) ??
    `[email]\naddress = "me@example.com"\nbase_url = "${mail.origin}"\ntoken_file = "${join(data, "gmail-token")}"\n\n[fs]\nroots = ["${sandbox}"]\n\n[http]\nhosts = [${sinks.map((s) => `"${s.host}"`).join(", ")}]\n`;
  writeFileSync(join(data, "connections.toml"), connections);
  const policies = options.policies?.(world);
  if (policies !== undefined) {
    mkdirSync(join(data, "policies"));
    for (const [name, text] of Object.entries(policies)) writeFileSync(join(data, "policies", name), text);
  }

  world.start = (args, opts = {}) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: home,
      env: { ...process.env, ...env, ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    children.add(child);
    let stdout = "";
    let stderr = "";
    let killed = false;
    child.stdout!.setEncoding("utf8");
    child.stderr!.setEncoding("utf8");
    child.stdout!.on("data", (d: string) => (stdout += d));
    child.stderr!.on("data", (d: string) => (stderr += d));
    child.stdin!.on("error", () => undefined);
    child.stdin!.end(opts.stdin ?? "");
    const timer = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, opts.boundMs ?? 150_000);
    const done = new Promise<Ran>((resolve) =>
      child.once("close", (code) => {
        clearTimeout(timer);
        children.delete(child);
        resolve({ code, stdout, stderr, killed });
      }),
    );
    return { child, done, stdout: () => stdout, stderr: () => stderr };
  };
  world.run = (source, opts = {}) =>
    world.start(["run", "-", ...(opts.args ?? [])], {
      stdin: source,
      ...(opts.boundMs === undefined ? {} : { boundMs: opts.boundMs }),
    }).done;
  world.login = async () => {
    const link = makeLoginLink({ dataDir: data, now: () => new Date() }, "alice");
    const response = await fetch(`${world.serveUrl}/login?link=${link}`, { redirect: "manual" });
    if (response.status !== 303) throw new Error(`login refused: ${response.status} ${await response.text()}`);
    const cookies = response.headers.getSetCookie().map((c) => c.split(";")[0]!);
    return { cookie: cookies.join("; "), csrf: cookies.find((c) => c.startsWith("countersign_csrf="))!.split("=")[1]! };
  };
  world.reviewed = async (running) => {
    let ended = false;
    void running.done.then(() => (ended = true));
    for (;;) {
      const match = /review: \S+\/requests\/(req_[A-Za-z0-9_-]+)/.exec(running.stderr());
      if (match !== null) return match[1]!;
      if (ended) return null;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  world.decide = async (id, body) => {
    const session = await world.login();
    // The person looks at the request before deciding: the page, then its data.
    await (await fetch(`${world.serveUrl}/requests/${id}`, { headers: { cookie: session.cookie } })).text();
    await (await fetch(`${world.serveUrl}/v1/requests/${id}`, { headers: { cookie: session.cookie } })).text();
    await (await fetch(`${world.serveUrl}/v1/requests/${id}/page`, { headers: { cookie: session.cookie } })).text();
    const response = await fetch(`${world.serveUrl}/v1/requests/${id}/decision`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        "x-csrf-token": session.csrf,
        "content-type": "application/json",
        origin: world.serveUrl,
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: response.status, body: parsed };
  };

  const serve = spawn(process.execPath, [BIN, "serve", "--port", "0", "--workers", "1"], {
    cwd: home,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let serveErr = "";
  serve.stderr!.on("data", (d: Buffer) => (serveErr += d.toString()));
  const serveExited = new Promise<void>((resolve) => serve.once("exit", () => resolve()));
  world.serveUrl = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${serveErr}`)), 60_000);
    serve.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const at = out.indexOf(MARK);
      if (at >= 0 && out.indexOf("\n", at) > 0) {
        clearTimeout(timer);
        resolve(
          out
            .slice(at + MARK.length, out.indexOf("\n", at))
            .trim()
            .split(/\s/)[0]!,
        );
      }
    });
    void serveExited.then(() => {
      clearTimeout(timer);
      reject(new Error(`serve exited before it was ready: ${serveErr}`));
    });
  });

  world.close = async () => {
    for (const child of children) child.kill("SIGKILL");
    serve.kill("SIGTERM");
    await serveExited;
    await mail.close();
    await gmail.close();
    for (const sink of sinks) await sink.close();
    rmSync(home, { recursive: true, force: true });
  };
  return world;
}

/** A program around `main`'s body, importing what it names. */
export function program(
  body: string,
  options: { imports?: string; guarantees?: string; rationale?: string } = {},
): string {
  return `import { program } from "countersign";
${options.imports ?? ""}

export default program({
  rationale: ${JSON.stringify(options.rationale ?? "Do the task.")},
  guarantees: [${options.guarantees ?? ""}],
  async main() {
${body}
  },
});
`;
}

/** `f` over `items`, at most `width` at a time, results in order. */
export async function inBatches<T, R>(items: readonly T[], f: (item: T) => Promise<R>, width = 3): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map(f))));
  return out;
}

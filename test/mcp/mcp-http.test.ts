// MCP over Streamable HTTP at the authority's /mcp: the SDK's own client against a real authority
// on 127.0.0.1 (SQLite) with the Gmail-shaped provider, and raw HTTP for what a client must not do.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { request, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGmailServer, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import { localContext } from "../../src/app/index.js";
import { httpAuthority } from "../../src/cli/http-authority.js";
import { httpMcpEndpoint, type HttpMcpOptions } from "../../src/mcp/index.js";
import type { DialectName } from "../store/fixtures.js";
import { startTestAuthority, warmAnalysis, type ApproverSession, type TestAuthority } from "../authority/harness.js";

const GMAIL_TOKEN = "mcp-http-test-token";
const SLOW = 180_000; // analyses and runs on a loaded machine
const SESSIONS_PER_AGENT = 3;
const IDLE_MS = 10 * 60 * 1000;

const mail = (to: string) => `import { program } from "countersign";
import { sendEmail } from "trusted/email";

export default program({
  rationale: "Mail ${to}.",
  async main() {
    await sendEmail({ to: [${JSON.stringify(to)}], subject: "Hello", body: "From the MCP HTTP tests." });
  },
});
`;

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1.0.0" } },
};

let a: TestAuthority;
let alice: ApproverSession;
let gmail: GmailServer;
let closeA: () => Promise<void>;
let clock = Date.now(); // the endpoint's clock: a millisecond a reading, and past the idle lifetime in that test
let agent: Client;
let bobToken: string;

/** An authority serving /mcp, whose runs mail the Gmail-shaped server. */
async function startMcpAuthority(
  dialect: DialectName,
  endpointOptions: Partial<HttpMcpOptions>,
  database?: string,
): Promise<{ authority: TestAuthority; close(): Promise<void> }> {
  const dataDir = join(mkdtempSync(join(tmpdir(), "countersign-mcp-http-")), "data");
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, "gmail-token"), GMAIL_TOKEN, { mode: 0o600 });
  writeFileSync(
    join(dataDir, "connections.toml"),
    `[email]\nbase_url = "${gmail.url}"\ntoken_file = "${join(dataDir, "gmail-token")}"\naddress = "me@example.com"\n`,
  );
  let url = "";
  let runner: ReturnType<typeof localContext> | undefined;
  const context = () => (runner ??= localContext({ HOME: join(dataDir, ".."), COUNTERSIGN_HOME: dataDir }));
  const endpoint = httpMcpEndpoint({
    context,
    version: "0.0.0-test",
    authority: (token) => httpAuthority({ url, token }),
    ...endpointOptions,
  });
  const authority = await startTestAuthority(dialect, {
    dataDir,
    mcp: endpoint,
    ...(database === undefined ? {} : { database }),
  });
  url = authority.url;
  return { authority, close: async () => void (await authority.close(), await runner?.close()) };
}

async function connect(token: string, at = a): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${at.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "countersign-tests", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

beforeAll(async () => {
  gmail = await startGmailServer({ token: GMAIL_TOKEN });
  ({ authority: a, close: closeA } = await startMcpAuthority("sqlite", {
    sessionsPerAgent: SESSIONS_PER_AGENT,
    idleMs: IDLE_MS,
    now: () => (clock += 1),
  }));
  alice = await a.login("alice");
  bobToken = (await a.authority.state.store.addToken("bob")).token;
  await warmAnalysis(a);
  agent = (await connect(a.token)).client;
}, SLOW);

afterAll(async () => {
  await agent?.close();
  await closeA?.();
  await gmail?.close();
});

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, any>;
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: { onprogress?: (p: { message?: string }) => void; signal?: AbortSignal } = {},
): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args }, undefined, {
    timeout: SLOW,
    resetTimeoutOnProgress: true,
    ...options,
  })) as ToolAnswer;
}

async function pendingId(at = a, session = alice): Promise<string | undefined> {
  const pending = await at.call("GET", "/v1/requests?status=pending", { session });
  return pending.body.requests?.[0]?.id as string | undefined;
}

/** Decide the one pending request once it appears, as the approver, through the approver API (of `at`). */
async function decideWhenPending(decision: Record<string, string>, at = a, session = alice): Promise<string> {
  for (;;) {
    const id = await pendingId(at, session);
    if (id !== undefined) {
      expect((await at.call("POST", `/v1/requests/${id}/decision`, { session, body: decision })).status).toBe(200);
      return id;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A raw call to /mcp, as a client that does not follow the rules might make it (node:http: fetch cannot send another Host). */
async function raw(
  method: string,
  options: { token?: string | null; body?: string; headers?: Record<string, string>; session?: string } = {},
): Promise<{ status: number; headers: { get(name: string): string | null }; text: string; json: any }> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...options.headers,
  };
  const token = options.token === undefined ? a.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.session !== undefined) headers["mcp-session-id"] = options.session;
  const { status, head, text } = await new Promise<{ status: number; head: IncomingHttpHeaders; text: string }>(
    (resolve, reject) => {
      let answered = false;
      const req = request(`${a.url}/mcp`, { method, headers }, (res) => {
        answered = true;
        let body = "";
        res.on("data", (d: Buffer) => (body += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, head: res.headers, text: body }));
      });
      req.on("error", (err) => answered || reject(err)); // a server may answer (413) and close before the whole body is sent
      req.end(options.body);
    },
  );
  const data = /^data: (.*)$/m.exec(text)?.[1] ?? text; // an SSE answer carries its message in a data line
  let json: any;
  try {
    json = JSON.parse(data);
  } catch {}
  return { status, headers: { get: (name) => (head[name] as string | undefined) ?? null }, text, json };
}

const open = (token?: string) =>
  raw("POST", { body: JSON.stringify(INITIALIZE), ...(token === undefined ? {} : { token }) });

describe("MCP over Streamable HTTP at /mcp", () => {
  it("lists the tools of stdio: one implementation, two transports", async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "check_program",
      "countersign_api",
      "countersign_context",
      "get_request",
      "run_program",
      "run_request",
      "withdraw_request",
    ]);
    expect(agent.getServerVersion()).toMatchObject({ name: "countersign" });
  });

  it("an unknown tool is answered as over stdio: an isError result with error and next (the SDK's way, not JSON-RPC -32602)", async () => {
    const r = await call(agent, "no_such_tool", {});
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({
      error: { class: "usage_error", message: expect.stringMatching(/no_such_tool/) },
      next: expect.any(String),
    });
  });

  it(
    "check_program checks at the authority with the agent's token; nothing is submitted",
    async () => {
      const r = await call(agent, "check_program", { program: mail("carol@example.com") });
      expect(r.structuredContent).toMatchObject({
        ok: true,
        decision: "ask",
        checked_by: "authority",
        effects: [{ op: "email.send_email", verdict: "ask" }],
      });
      expect(await pendingId()).toBeUndefined();
    },
    SLOW,
  );

  it(
    "run_program waits for a person with progress, and runs once they approve through the approver API",
    async () => {
      const progress: string[] = [];
      const sent = gmail.sent.length;
      const [ran] = await Promise.all([
        call(
          agent,
          "run_program",
          { program: mail("dave@example.com") },
          { onprogress: (p) => progress.push(p.message ?? "") },
        ),
        decideWhenPending({ decision: "approved_once" }),
      ]);
      expect(ran.structuredContent).toMatchObject({
        outcome: "executed",
        decision: "approved_once",
        calls: [{ op: "email.send_email", status: "done" }],
      });
      expect(progress.some((m) => m.includes("a person is being asked"))).toBe(true);
      expect(progress.join("\n")).not.toMatch(/http|review/);
      expect(gmail.sent.slice(sent).map((m) => m.to)).toEqual([["dave@example.com"]]);
    },
    SLOW,
  );

  it(
    "a cancelled run stops waiting and leaves its request pending; the second agent can neither read it nor use the first's session",
    async () => {
      const abort = new AbortController();
      let id: string | undefined;
      const progress: string[] = [];
      const running = call(
        agent,
        "run_program",
        { program: mail("erin@example.com") },
        {
          signal: abort.signal,
          onprogress: (p) => (
            progress.push(p.message ?? ""), (id ??= /request (req_[\w-]+)/.exec(p.message ?? "")?.[1])
          ),
        },
      );
      while (id === undefined || !progress.some((m) => m.startsWith("waiting")))
        await new Promise((r) => setTimeout(r, 50));
      abort.abort();
      await expect(running).rejects.toThrow();
      const mine = await call(agent, "get_request", { id });
      expect(mine.structuredContent).toMatchObject({ id, status: "pending" });

      const { client: bob, transport: bobTransport } = await connect(bobToken);
      try {
        const theirs = await call(bob, "get_request", { id });
        expect(theirs.isError).toBe(true);
        expect(JSON.stringify(theirs.structuredContent)).not.toContain("erin@example.com");
        const withdrawn = await call(bob, "withdraw_request", { request_id: id });
        expect(withdrawn.isError).toBe(true);
        expect(await pendingId()).toBe(id);
        // The first agent's session id with the second's token: as if there were no such session.
        const session = (agent.transport as StreamableHTTPClientTransport).sessionId!;
        const stolen = await raw("POST", {
          token: bobToken,
          session,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 7,
            method: "tools/call",
            params: { name: "get_request", arguments: { id } },
          }),
        });
        expect(stolen.status).toBe(404);
        expect(stolen.json).toMatchObject({ error: { code: -32001 } });
        expect(stolen.text).not.toContain("erin");
        expect(bobTransport.sessionId).not.toBe(session);
      } finally {
        await bob.close();
      }
      expect((await call(agent, "withdraw_request", { request_id: id })).isError).toBeFalsy();
      expect(await pendingId()).toBeUndefined();
    },
    SLOW,
  );

  it("no token: 401 with a Bearer challenge; a token that is not valid: 401 invalid_token; nothing opened", async () => {
    const none = await open(null as unknown as string);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="countersign"');
    expect(none.headers.get("mcp-session-id")).toBeNull();
    const forged = await open("cs_" + "A".repeat(40));
    expect(forged.status).toBe(401);
    expect(forged.headers.get("www-authenticate")).toBe('Bearer realm="countersign", error="invalid_token"');
    const notBearer = await raw("POST", {
      token: null,
      headers: { authorization: `Basic ${a.token}` },
      body: JSON.stringify(INITIALIZE),
    });
    expect(notBearer.status).toBe(401);
    const get = await raw("GET", { token: null });
    expect(get.status).toBe(401);
  });

  it("an approver's session is refused (403), with or without a token", async () => {
    const cookieOnly = await raw("POST", {
      token: null,
      headers: { cookie: alice.cookie },
      body: JSON.stringify(INITIALIZE),
    });
    expect(cookieOnly.status).toBe(403);
    expect(cookieOnly.json).toMatchObject({ error: { class: "capability_denied", details: { reason: "forbidden" } } });
    const both = await raw("POST", { headers: { cookie: alice.cookie }, body: JSON.stringify(INITIALIZE) });
    expect(both.status).toBe(403);
  });

  it("a body that is not JSON: HTTP 400 with the JSON-RPC parse error -32700; too deep a body: -32600", async () => {
    for (const body of ["{", "not json", '{"jsonrpc":"2.0",', ""]) {
      const r = await raw("POST", { body });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: expect.stringMatching(/^Parse error/) },
      });
    }
    const deep = await raw("POST", { body: "[".repeat(50) + "]".repeat(50) });
    expect(deep.status).toBe(400);
    expect(deep.json).toMatchObject({ error: { code: -32600 } });
  });

  it("an oversized body: 413 before it is read, within the authority's body limit", async () => {
    const big = JSON.stringify({
      ...INITIALIZE,
      params: { ...INITIALIZE.params, padding: "x".repeat(1024 * 1024 + 1) },
    });
    const r = await raw("POST", { body: big });
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ error: { class: "resource_limit_exceeded", details: { reason: "too_large" } } });
  });

  it("DNS rebinding: another Host is misdirected (421), another Origin refused (403), on every method", async () => {
    const host = await raw("POST", { headers: { host: "evil.example.com" }, body: JSON.stringify(INITIALIZE) });
    expect(host.status).toBe(421);
    for (const method of ["POST", "GET", "DELETE"]) {
      const origin = await raw(method, {
        headers: { origin: "http://evil.example.com" },
        ...(method === "POST" ? { body: JSON.stringify(INITIALIZE) } : {}),
      });
      expect(origin.status).toBe(403);
      expect(origin.json).toMatchObject({ error: { details: { reason: "origin" } } });
    }
    const own = await raw("POST", { headers: { origin: a.url }, body: JSON.stringify(INITIALIZE) });
    expect(own.status).toBe(200);
    await raw("DELETE", { session: own.headers.get("mcp-session-id")! });
  });

  it("without a session: only initialize opens one; an unknown session id is 404", async () => {
    const list = await raw("POST", { body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });
    expect(list.status).toBe(400);
    expect(list.json).toMatchObject({ error: { message: expect.stringMatching(/Mcp-Session-Id/) } });
    const unknown = await raw("POST", {
      session: "not-a-session",
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(unknown.status).toBe(404);
  });

  it("sessions are bounded per agent: a new one closes the least recently used one with nothing open; with all in use, 429", async () => {
    const carol = (await a.authority.state.store.addToken("carol")).token;
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS_PER_AGENT; i++) {
      const r = await open(carol);
      expect(r.status).toBe(200);
      ids.push(r.headers.get("mcp-session-id")!);
    }
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" });
    expect((await raw("POST", { token: carol, session: ids[0]!, body: ping })).status).toBe(200); // ids[1] is now the least recently used
    const fourth = await open(carol);
    expect(fourth.status).toBe(200);
    expect((await raw("POST", { token: carol, session: ids[1]!, body: ping })).status).toBe(404);
    expect((await raw("POST", { token: carol, session: ids[0]!, body: ping })).status).toBe(200);
    ids.splice(1, 1, fourth.headers.get("mcp-session-id")!);

    // Each session with its event stream open (GET): all in use, so a new one is refused.
    const streams = ids.map(() => new AbortController());
    await Promise.all(
      ids.map(async (id, i) => {
        const response = await fetch(`${a.url}/mcp`, {
          headers: { authorization: `Bearer ${carol}`, accept: "text/event-stream", "mcp-session-id": id },
          signal: streams[i]!.signal,
        });
        expect(response.status).toBe(200);
      }),
    );
    const over = await open(carol);
    expect(over.status).toBe(429);
    expect(over.json).toMatchObject({ error: { code: -32000, message: expect.stringMatching(/all in use/) } });
    expect(over.headers.get("mcp-session-id")).toBeNull();
    const others = await open(bobToken); // another agent is not held back
    expect(others.status).toBe(200);
    await raw("DELETE", { token: bobToken, session: others.headers.get("mcp-session-id")! });
    // Another agent cannot end carol's session; she can.
    expect((await raw("DELETE", { token: bobToken, session: ids[0]! })).status).toBe(404);
    expect((await raw("DELETE", { token: carol, session: ids[0]! })).status).toBe(200);
    expect((await open(carol)).status).toBe(200);
    for (const stream of streams) stream.abort();
  });

  it("a session idle past its lifetime is closed and its id no longer answers; one with an open stream is kept", async () => {
    const dave = (await a.authority.state.store.addToken("dave")).token;
    const idle = (await open(dave)).headers.get("mcp-session-id")!;
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" });
    expect((await raw("POST", { token: dave, session: idle, body: ping })).status).toBe(200);
    clock += IDLE_MS + 1;
    expect((await open(dave)).status).toBe(200); // opening a session sweeps the idle ones
    expect((await raw("POST", { token: dave, session: idle, body: ping })).status).toBe(404);
    // The SDK client holds its event stream (GET) open: its session is in use, not idle.
    expect(await agent.ping()).toEqual({});
  });
});

describe("MCP over HTTP with two authorities on one PostgreSQL database", () => {
  it(
    "a run waiting at one authority goes on when a person approves at the other",
    async () => {
      const first = await startMcpAuthority("postgres", {});
      // The second has its own data directory and keys; the store, its tokens among them, is shared.
      const secondDir = join(mkdtempSync(join(tmpdir(), "countersign-mcp-http-")), "data");
      mkdirSync(secondDir, { recursive: true });
      writeFileSync(join(secondDir, "submitter.token"), first.authority.token, { mode: 0o600 });
      const second = await startTestAuthority("postgres", { dataDir: secondDir, database: first.authority.database });
      const { client } = await connect(first.authority.token, first.authority);
      try {
        await warmAnalysis(first.authority);
        const bob = await second.login("bob");
        const sent = gmail.sent.length;
        const [ran] = await Promise.all([
          call(client, "run_program", { program: mail("frank@example.com") }),
          decideWhenPending({ decision: "approved_once" }, second, bob),
        ]);
        expect(ran.structuredContent).toMatchObject({
          outcome: "executed",
          decision: "approved_once",
          calls: [{ op: "email.send_email", status: "done" }],
        });
        expect(gmail.sent.slice(sent).map((m) => m.to)).toEqual([["frank@example.com"]]);
      } finally {
        await client.close();
        await second.close();
        await first.close();
      }
    },
    SLOW,
  );
});

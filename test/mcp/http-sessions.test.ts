// The session bounds of MCP over HTTP, on the endpoint itself: web Requests in, Responses out, an
// injected clock. Opening a session (initialize) reaches no authority.
import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { localContext } from "../../src/app/index.js";
import { CountersignError } from "../../src/model/index.js";
import { httpMcpEndpoint, type HttpMcpOptions } from "../../src/mcp/index.js";

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "unit", version: "1.0.0" } },
};
const PING = { jsonrpc: "2.0", id: 2, method: "ping" };
const context = localContext({ HOME: tmpdir(), COUNTERSIGN_HOME: tmpdir() });
const endpoints: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(endpoints.splice(0).map((e) => e.close()));
});

function endpoint(options: Partial<HttpMcpOptions>) {
  const noAuthority = () => {
    throw new CountersignError("config_error", "cli", "no authority in this test");
  };
  const made = httpMcpEndpoint({ context: () => context, version: "0.0.0-test", authority: noAuthority, ...options });
  endpoints.push(made);
  return made;
}

const post = (body: unknown, session?: string) =>
  new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(session === undefined ? {} : { "mcp-session-id": session }),
    },
    body: JSON.stringify(body),
  });

async function open(
  e: ReturnType<typeof endpoint>,
  submitter: string,
): Promise<{ status: number; id: string | null; body: string }> {
  const response = await e.handle(post(INITIALIZE), { submitter, token: `token-of-${submitter}`, body: INITIALIZE });
  return { status: response.status, id: response.headers.get("mcp-session-id"), body: await response.text() };
}

/** A ping in a session, its answer read to the end (an answer still streaming keeps its session in use). */
async function ping(
  e: ReturnType<typeof endpoint>,
  session: string,
  submitter: string,
  token: string,
): Promise<number> {
  const response = await e.handle(post(PING, session), { submitter, token, body: PING });
  await response.text();
  return response.status;
}

describe("MCP over HTTP: sessions", () => {
  it("the authority's bound holds across agents: past it, 503 with Retry-After and no session", async () => {
    const e = endpoint({ maxSessions: 2, sessionsPerAgent: 2 });
    expect((await open(e, "ann")).status).toBe(200);
    expect((await open(e, "ben")).status).toBe(200);
    const over = await e.handle(post(INITIALIZE), { submitter: "cy", token: "token-of-cy", body: INITIALIZE });
    expect(over.status).toBe(503);
    expect(over.headers.get("retry-after")).toBe("60");
    expect(over.headers.get("mcp-session-id")).toBeNull();
    expect(await over.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
  });

  it("a session answers only the token that opened it, and is closed once idle past its lifetime", async () => {
    let clock = 0;
    const e = endpoint({ idleMs: 1000, now: () => clock });
    const { id } = await open(e, "ann");
    expect(await ping(e, id!, "ann", "token-of-ann")).toBe(200);
    // The same agent name with another token (a rotated one) is another caller.
    expect(await ping(e, id!, "ann", "another-token")).toBe(404);
    clock += 999;
    await open(e, "ben"); // opening sweeps the idle sessions: not idle long enough yet
    expect(await ping(e, id!, "ann", "token-of-ann")).toBe(200); // and used again now
    clock += 1000;
    await open(e, "ben");
    expect(await ping(e, id!, "ann", "token-of-ann")).toBe(404);
  });

  it("without a session id only initialize is taken (400); a batch holding one is not an initialize", async () => {
    const e = endpoint({});
    const ping = await e.handle(post(PING), { submitter: "ann", token: "t", body: PING });
    expect(ping.status).toBe(400);
    const batch = await e.handle(post([INITIALIZE]), { submitter: "ann", token: "t", body: [INITIALIZE] });
    expect(batch.status).toBe(400);
    expect(batch.headers.get("mcp-session-id")).toBeNull();
  });
});

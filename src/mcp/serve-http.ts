import { createHash, randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { AppContext, AuthorityClient } from "../app/index.js";
import { createMcpServer } from "./create-server.js";

/**
 * Sessions one agent may hold at once: a few hosts or windows, not a leak (past it, its least recently used one with
 * nothing open is closed).
 */
export const DEFAULT_SESSIONS_PER_AGENT = 16;
/** Sessions the endpoint holds at once, every agent together. */
export const DEFAULT_MAX_SESSIONS = 256;
/** A session nobody has called for this long, with nothing open, is closed. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;

export interface HttpMcpOptions {
  /** The runner's context, asked for when a session opens (after the authority has made its data directory). */
  context: () => AppContext;
  version: string;
  /** The authority as this agent: its own submitter token, the one that opened the session. */
  authority: (token: string) => AuthorityClient;
  sessionsPerAgent?: number;
  maxSessions?: number;
  idleMs?: number;
  now?: () => number;
}

/** One call to /mcp, as the authority's route hands it in: the caller is authenticated, the body parsed. */
export interface HttpMcpCall {
  submitter: string;
  token: string;
  body?: unknown;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  submitter: string;
  tokenHash: string;
  lastSeen: number;
  open: number; // answers still streaming (a run waiting for a person, an event stream)
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status, headers });
}

/**
 * MCP over Streamable HTTP: each session its own server from createMcpServer (the tools of stdio),
 * bound to the token that opened it; the tools reach the authority with that token. Sessions are
 * bounded per agent and overall, and closed when idle. No event store: a broken stream is not
 * resumed (the call's request stays at the authority, and run_request picks it up).
 */
export function httpMcpEndpoint(options: HttpMcpOptions): {
  handle(request: Request, call: HttpMcpCall): Promise<Response>;
  close(): Promise<void>;
} {
  const now = options.now ?? Date.now;
  const idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_MS;
  const perAgent = options.sessionsPerAgent ?? DEFAULT_SESSIONS_PER_AGENT;
  const max = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const sessions = new Map<string, Session>();

  const closeIdle = () => {
    const cutoff = now() - idleMs;
    for (const [id, session] of sessions) {
      if (session.open > 0 || session.lastSeen > cutoff) continue;
      sessions.delete(id); // counted out now, not once its close has run
      void session.transport.close();
    }
  };
  const sweep = setInterval(closeIdle, Math.min(idleMs, 60_000));
  sweep.unref();

  /** The answer, its streaming counted as the session's use: a session is not idle while it answers. */
  const tracked = (session: Session, request: Request, response: Response): Response => {
    session.lastSeen = now();
    if (response.body === null) return response;
    session.open += 1;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      session.open -= 1;
      session.lastSeen = now();
    };
    request.signal.addEventListener("abort", end, { once: true });
    const body = response.body.pipeThrough(new TransformStream({ flush: end }));
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  const open = async (request: Request, call: HttpMcpCall): Promise<Response> => {
    closeIdle();
    const own = [...sessions.values()].filter((s) => s.submitter === call.submitter);
    if (own.length >= perAgent) {
      // Hosts seldom end a session (DELETE) when they restart: the agent's least recently used
      // session with nothing open makes room. Only sessions all in use refuse a new one.
      const unused = own.filter((s) => s.open === 0).sort((x, y) => x.lastSeen - y.lastSeen)[0];
      if (unused === undefined)
        return rpcError(
          429,
          -32000,
          `this agent holds ${own.length} MCP sessions, all in use, the most it may: end one (DELETE /mcp with its Mcp-Session-Id) first`,
          { "retry-after": "60" },
        );
      await unused.transport.close();
    }
    if (sessions.size >= max)
      return rpcError(
        503,
        -32000,
        `the authority holds ${sessions.size} MCP sessions, the most it may: try again later`,
        { "retry-after": "60" },
      );
    const id = randomUUID();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    const session: Session = {
      transport,
      submitter: call.submitter,
      tokenHash: sha256(call.token),
      lastSeen: now(),
      open: 0,
    };
    sessions.set(id, session);
    transport.onclose = () => void sessions.delete(id);
    const server = createMcpServer({
      ctx: options.context(),
      version: options.version,
      authority: () => options.authority(call.token),
    });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request, { parsedBody: call.body });
      if (transport.sessionId === undefined) await transport.close(); // the initialize was refused: no session
      return tracked(session, request, response);
    } catch (err) {
      await transport.close();
      throw err;
    }
  };

  return {
    async handle(request, call) {
      const id = request.headers.get("mcp-session-id");
      if (id === null) {
        if (request.method === "POST" && isInitializeRequest(call.body)) return open(request, call);
        return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required (open a session with initialize)");
      }
      const session = sessions.get(id);
      // Another agent's session is answered as one that does not exist: its id is no way in.
      if (session === undefined || session.tokenHash !== sha256(call.token))
        return rpcError(404, -32001, "Session not found");
      return tracked(session, request, await session.transport.handleRequest(request, { parsedBody: call.body }));
    },
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((s) => s.transport.close()));
    },
  };
}

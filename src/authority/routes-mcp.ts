import type { Hono } from "hono";
import { getCookie } from "hono/cookie";
import type { AppDeps, AuthorityEnv, McpEndpoint } from "./deps.js";
import { bearer, refuseOtherSite, submitterName } from "./guards.js";
import { denied } from "./http-error.js";
import { jsonNestedDeeper } from "./json-text.js";
import { MAX_BODY_DEPTH, readText } from "./read-body.js";
import { readSession, SESSION_COOKIE } from "./session.js";

/** The challenge of a 401 at /mcp (RFC 6750): a bearer token, the agent's submitter token. */
const CHALLENGE = 'Bearer realm="countersign"';

/** A JSON-RPC error with no request id: the body could not be read as a request at all. */
function rpcError(code: number, message: string) {
  return { jsonrpc: "2.0" as const, id: null, error: { code, message } };
}

/**
 * MCP over Streamable HTTP at /mcp, for agents only: the Origin checked on every method (an event
 * stream is a GET), an approver's session refused (403), a valid submitter token required (401
 * with a challenge), the body read within the limit and parsed here, so that a body that is not
 * JSON gets the JSON-RPC parse error (-32700) the SDK's transport does not give.
 */
export function mcpRoutes(app: Hono<AuthorityEnv>, deps: AppDeps, mcp: McpEndpoint): void {
  app.on(["GET", "POST", "DELETE"], "/mcp", async (c) => {
    refuseOtherSite(c, deps);
    if (readSession(deps.secret, getCookie(c, SESSION_COOKIE), Date.now()) !== undefined) {
      throw denied(
        "an approver session is refused at /mcp: it serves agents, each with its submitter token",
        "forbidden",
      );
    }
    let submitter: string;
    try {
      submitter = await submitterName(c, deps);
    } catch (err) {
      c.env.outgoing.setHeader(
        "www-authenticate",
        c.req.header("authorization") === undefined ? CHALLENGE : `${CHALLENGE}, error="invalid_token"`,
      );
      throw err;
    }
    const token = bearer(c.req.header("authorization"))!;
    if (c.req.method !== "POST") return mcp.handle(c.req.raw, { submitter, token });
    const text = await readText(c, deps.maxBodyBytes);
    if (jsonNestedDeeper(text, MAX_BODY_DEPTH))
      return c.json(
        rpcError(-32600, `Invalid Request: the body is nested more than ${MAX_BODY_DEPTH} levels deep`),
        400,
      );
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      return c.json(rpcError(-32700, `Parse error: ${(err as Error).message}`), 400);
    }
    return mcp.handle(c.req.raw, { submitter, token, body });
  });
}

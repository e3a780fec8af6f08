import type { HttpBindings } from "@hono/node-server";
import type { Session } from "./session.js";
import type { AuthorityState } from "./authority-state.js";
import type { DecisionWaiter } from "./decision-waiter.js";

/** What the routes run with. */
export interface AppDeps {
  state: AuthorityState;
  secret: Buffer; // the approver secret: login links, sessions and CSRF tokens are signed with it
  allowedHosts: ReadonlySet<string>; // Host header values that name this authority (host:port)
  ownOrigins: ReadonlySet<string>; // the Origin values of this authority's own pages (scheme://host:port)
  baseUrl: () => string; // where this authority answers, for review links
  waiter: DecisionWaiter;
  maxBodyBytes: number;
  log: (line: string) => void;
  mcp?: McpEndpoint; // MCP at /mcp; absent: no such route
}

/**
 * MCP over Streamable HTTP, handed in by the command that starts the authority (the MCP server is
 * an edge of its own, which the authority does not import). The route has checked the Host, the
 * Origin, the submitter token and the body's size and JSON before it is called.
 */
export interface McpEndpoint {
  handle(request: Request, call: { submitter: string; token: string; body?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

/** Who is calling, set by the auth middleware. */
export type AuthorityEnv = { Bindings: HttpBindings; Variables: { submitter: string; approver: Session } };

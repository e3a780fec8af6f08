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
}

/** Who is calling, set by the auth middleware. */
export type AuthorityEnv = { Bindings: HttpBindings; Variables: { submitter: string; approver: Session } };

import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { AppDeps, AuthorityEnv } from "./deps.js";
import { denied } from "./http-error.js";
import { CSRF_HEADER, csrfMatches, readSession, SESSION_COOKIE } from "./session.js";

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * DNS rebinding: a page on evil.example that resolves its name to 127.0.0.1 reaches this port,
 * but its requests carry its own Host. Only the names this authority is bound as are served (421).
 */
export function hostCheck(deps: AppDeps): MiddlewareHandler<AuthorityEnv> {
  return async (c, next) => {
    const host = c.req.header("host")?.toLowerCase();
    if (host === undefined || !deps.allowedHosts.has(host)) {
      throw denied(`this authority does not answer to the host ${JSON.stringify(host ?? "")}`, "misdirected", {
        host: host ?? null,
      });
    }
    await next();
  };
}

/**
 * A state change from another site is refused: an Origin, when sent, must be this authority's
 * own, whole (scheme, host and port; browsers send it serialized, so it is compared as text),
 * and a browser's Sec-Fetch-Site must say same-origin (or none: typed or bookmarked).
 */
export function originCheck(deps: AppDeps): MiddlewareHandler<AuthorityEnv> {
  return async (c, next) => {
    if (UNSAFE.has(c.req.method)) refuseOtherSite(c, deps);
    await next();
  };
}

/** The Origin check itself, for a route that applies it to every method (an MCP event stream is a GET). */
export function refuseOtherSite(c: Context<AuthorityEnv>, deps: AppDeps): void {
  const origin = c.req.header("origin");
  if (origin !== undefined && !deps.ownOrigins.has(origin))
    throw denied(`requests from ${origin} are refused`, "origin", { origin });
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined && site !== "same-origin" && site !== "none")
    throw denied(`a ${site} request is refused`, "origin", { sec_fetch_site: site });
}

export function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer ([^\s]+)$/i.exec(header ?? "");
  return match?.[1];
}

/**
 * The name of the call's valid, unrevoked submitter token (looked up in the store each time: a revoked token stops at
 * once).
 */
export async function submitterName(c: Context<AuthorityEnv>, deps: AppDeps): Promise<string> {
  const header = c.req.header("authorization");
  if (header === undefined)
    throw denied("this route needs a submitter token: Authorization: Bearer <token>", "unauthenticated");
  const token = bearer(header);
  const name = token === undefined ? null : await deps.state.store.authenticate(token);
  if (name === null) throw denied("the submitter token is not valid (unknown or revoked)", "unauthenticated");
  return name;
}

/** A submitter route: a valid, unrevoked submitter token. */
export function submitterAuth(deps: AppDeps): MiddlewareHandler<AuthorityEnv> {
  return async (c, next) => {
    c.set("submitter", await submitterName(c, deps));
    await next();
  };
}

/**
 * For an answer that waited (a long poll): the submitter's token is checked again, so a token revoked meanwhile gets
 * nothing.
 */
export async function recheckSubmitter(c: Context<AuthorityEnv>, deps: AppDeps): Promise<void> {
  if ((await submitterName(c, deps)) !== c.get("submitter"))
    throw denied("the submitter token is not valid (unknown or revoked)", "unauthenticated");
}

/**
 * An approver route: the session cookie of a login link, and on every POST the session's CSRF
 * token. A request that carries a submitter token is refused outright (403), valid or not: the
 * agent can never act as the approver.
 */
export function approverAuth(deps: AppDeps): MiddlewareHandler<AuthorityEnv> {
  return async (c, next) => {
    if (c.req.header("authorization") !== undefined)
      throw denied("a submitter token is refused on approver routes", "forbidden");
    const session = readSession(deps.secret, getCookie(c, SESSION_COOKIE), Date.now());
    if (session === undefined)
      throw denied("this route needs an approver session: open a login link from `countersign ui`", "unauthenticated");
    if (UNSAFE.has(c.req.method) && !csrfMatches(deps.secret, session, c.req.header(CSRF_HEADER))) {
      throw denied(`a missing or wrong CSRF token (${CSRF_HEADER} header)`, "csrf");
    }
    c.set("approver", session);
    await next();
  };
}

/** A route both may call: with a bearer token as the submitter, else as the approver. */
export function eitherAuth(deps: AppDeps): MiddlewareHandler<AuthorityEnv> {
  const asSubmitter = submitterAuth(deps);
  const asApprover = approverAuth(deps);
  return (c, next) => (c.req.header("authorization") !== undefined ? asSubmitter(c, next) : asApprover(c, next));
}

import type { Hono } from "hono";
import { setCookie } from "hono/cookie";
import { useLoginLink } from "../app/index.js";
import { jwks } from "../receipt/index.js";
import type { AppDeps, AuthorityEnv } from "./deps.js";
import { denied } from "./http-error.js";
import { CSRF_COOKIE, csrfToken, makeSession, SESSION_COOKIE, SESSION_MS } from "./session.js";

/** Routes anyone who reaches the authority may call: health, the public keys, the login link. */
export function publicRoutes(app: Hono<AuthorityEnv>, deps: AppDeps): void {
  const ctx = deps.state.ctx;

  // "starting" until the analysis threads have loaded the compiler (programs meanwhile wait for them).
  app.get("/healthz", (c) => c.json({ ok: true, status: deps.state.pool.isWarm ? "ready" : "starting" }));

  app.get("/.well-known/jwks.json", async (c) => {
    const now = ctx.now();
    c.header("cache-control", "max-age=60");
    return c.json(jwks(await ctx.keys.keyring(now), now));
  });

  // A login link from `countersign ui`: once, within its minute. The session cookie is HttpOnly
  // and SameSite=Strict; the CSRF cookie is readable by the UI's own script, which echoes it back.
  app.get("/login", async (c) => {
    const link = c.req.query("link");
    if (link === undefined) throw denied("a login link needs its link parameter: run `countersign ui`", "forbidden");
    const approver = await useLoginLink(ctx, link);
    const { cookie, session } = makeSession(deps.secret, approver, Date.now());
    const maxAge = Math.floor(SESSION_MS / 1000);
    setCookie(c, SESSION_COOKIE, cookie, { httpOnly: true, sameSite: "Strict", path: "/", maxAge });
    setCookie(c, CSRF_COOKIE, csrfToken(deps.secret, session), { sameSite: "Strict", path: "/", maxAge });
    deps.log(`approver ${approver} logged in`);
    return c.redirect("/", 303);
  });
}

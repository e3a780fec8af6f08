import { Hono, type Context } from "hono";
import { getCookie } from "hono/cookie";
import { secureHeaders } from "hono/secure-headers";
import type { AppDeps, AuthorityEnv } from "./deps.js";
import { hostCheck, originCheck } from "./guards.js";
import { badRequest, errorBody, httpStatus } from "./http-error.js";
import { mcpRoutes } from "./routes-mcp.js";
import { approverRoutes } from "./routes-approver.js";
import { publicRoutes } from "./routes-public.js";
import { submitterRoutes } from "./routes-submitter.js";
import { readSession, SESSION_COOKIE } from "./session.js";
import { errorPage } from "./ui/error-view.js";
import { uiRoutes } from "./ui/routes-ui.js";

/** hono's secure-headers, as the authority sets them: a CSP without inline script. */
const SECURE_HEADERS: Parameters<typeof secureHeaders>[0] = {
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'"],
    connectSrc: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
  },
  strictTransportSecurity: false, // plain HTTP on loopback: HSTS would pin the browser to a TLS port that does not exist
  referrerPolicy: "same-origin", // not "no-referrer": with it a browser sends the Origin of its own form posts as "null"
};

/**
 * The security headers of every answer, as hono's secure-headers middleware sets them, worked out
 * once: they are the same for every answer, and the middleware built them into a Headers object
 * per request (which also took each answer off the Node server's plain-headers path).
 */
async function securityHeaders(): Promise<[string, string][]> {
  const probe = new Hono();
  probe.use(secureHeaders(SECURE_HEADERS));
  probe.get("/", (c) => c.body(null));
  return [...(await probe.request("/")).headers];
}

/**
 * The authority's HTTP app: security headers on every answer, errors included (set on the Node
 * response first: an answer's own headers would win a clash, and none has these names), the
 * Host check, the Origin check on state changes, then the routes (each body read within the
 * limit); every error leaves as the envelope of docs/architecture.md section 12 with its status — or, to a
 * browser asking for a page (not an API route), as a page in the UI's style with the next step.
 */
export async function createApp(deps: AppDeps): Promise<Hono<AuthorityEnv>> {
  const app = new Hono<AuthorityEnv>();
  const headers = await securityHeaders();
  app.use(async (c, next) => {
    for (const [name, value] of headers) c.env.outgoing.setHeader(name, value);
    await next();
  });
  app.use(hostCheck(deps));
  app.use(originCheck(deps));
  publicRoutes(app, deps);
  submitterRoutes(app, deps);
  approverRoutes(app, deps);
  if (deps.mcp !== undefined) mcpRoutes(app, deps, deps.mcp);
  uiRoutes(app, deps);
  const answer = (c: Context<AuthorityEnv>, err: unknown, status: number) => {
    if (!wantsPage(c)) return c.json(errorBody(err), status as 400);
    const session = readSession(deps.secret, getCookie(c, SESSION_COOKIE), Date.now());
    return c.html(errorPage(err, status, session?.approver), status as 400);
  };
  app.notFound((c) =>
    answer(
      c,
      badRequest(
        wantsPage(c) ? `there is no page ${c.req.path} here` : `no route ${c.req.method} ${c.req.path}`,
        "no_route",
      ),
      404,
    ),
  );
  app.onError((err, c) => {
    const status = httpStatus(err);
    if (status >= 500)
      deps.log(
        `${c.req.method} ${c.req.path}: ${status} ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
    return answer(c, err, status);
  });
  return app;
}

/**
 * API routes answer errors as JSON whoever asks; any other path answers a browser (which asks for text/html) with a
 * page.
 */
function wantsPage(c: Context<AuthorityEnv>): boolean {
  const path = c.req.path;
  if (path.startsWith("/v1/") || path === "/healthz" || path.startsWith("/.well-known/")) return false;
  return /\btext\/html\b/i.test(c.req.header("accept") ?? "");
}

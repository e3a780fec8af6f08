import { Hono } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { AppDeps, AuthorityEnv } from "./deps.js";
import { hostCheck, originCheck } from "./guards.js";
import { badRequest, errorBody, httpStatus } from "./http-error.js";
import { approverRoutes } from "./routes-approver.js";
import { publicRoutes } from "./routes-public.js";
import { submitterRoutes } from "./routes-submitter.js";
import { uiRoutes } from "./ui/routes-ui.js";

/** The body size every route accepts at most (413 past it; see read-body.ts). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

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
 * limit); every error leaves as the envelope of DESIGN.md section 12 with its status.
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
  uiRoutes(app, deps);
  app.notFound((c) => c.json(errorBody(badRequest(`no route ${c.req.method} ${c.req.path}`, "no_route")), 404));
  app.onError((err, c) => {
    const status = httpStatus(err);
    if (status >= 500) deps.log(`${c.req.method} ${c.req.path}: ${status} ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return c.json(errorBody(err), status as 400);
  });
  return app;
}

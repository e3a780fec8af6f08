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

/**
 * The authority's HTTP app: security headers on every answer (a CSP without inline script),
 * the Host check, the Origin check on state changes, then the routes (each body read within the limit); every
 * error leaves as the envelope of DESIGN.md section 12 with its status.
 */
export function createApp(deps: AppDeps): Hono<AuthorityEnv> {
  const app = new Hono<AuthorityEnv>();
  app.use(
    secureHeaders({
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
    }),
  );
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

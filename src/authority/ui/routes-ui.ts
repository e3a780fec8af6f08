import type { Context, Hono, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { html } from "hono/html";
import {
  answerRequestQuestion,
  decideRequest,
  listGlance,
  type ReviewedRequest,
  listRequests,
  readRequest,
  requestPage,
  reviewRequest,
  visibleText,
  type Verdict,
} from "../../app/index.js";
import { describeEffectConstraint } from "../../constraint/index.js";
import { CountersignError, RememberLifetime, RememberScope } from "../../model/index.js";
import { PolicyRule } from "../../policy/index.js";
import type { StoredRule } from "../../store/index.js";
import type { AppDeps, AuthorityEnv } from "../deps.js";
import { badRequest, denied, httpStatus } from "../http-error.js";
import { readText } from "../read-body.js";
import { csrfMatches, csrfToken, readSession, SESSION_COOKIE } from "../session.js";
import { LIVE_SCRIPT, STYLESHEET } from "./assets.js";
import { errorView, loginView } from "./error-view.js";
import { inboxView, rulesView } from "./inbox-view.js";
import { SCRIPT_PATH, STYLESHEET_PATH } from "./layout.js";
import { requestView, type RequestViewOptions } from "./request-view.js";

type Ctx = Context<AuthorityEnv>;

/** The most rows a page lists; older history is a link away. */
const PAGE_ROWS = 100;

/**
 * The approval UI: the inbox and history, a request's page with its actions, the remembered
 * rules. Pages need the approver session (without one: how to log in); their forms post back
 * here with the session's CSRF token in a field, and answer with a redirect to the page (or the
 * page again with the reason a decision was refused). The JSON API stays as it is.
 */
export function uiRoutes(app: Hono<AuthorityEnv>, deps: AppDeps): void {
  const ctx = deps.state.ctx;
  const session = pageSession(deps);
  const pendingCount = async () => (await listRequests(ctx, { status: "pending", limit: 500 })).requests.length;

  app.get(STYLESHEET_PATH, (c) => asset(c, STYLESHEET, "text/css"));
  app.get(SCRIPT_PATH, (c) => asset(c, LIVE_SCRIPT, "text/javascript"));

  app.get("/", session, async (c) => {
    const older = c.req.query("older");
    const pending = (await listRequests(ctx, { status: "pending", limit: PAGE_ROWS })).requests;
    const page = await listRequests(ctx, {
      limit: PAGE_ROWS,
      ...(older === undefined || !/^[1-9][0-9]{0,15}$/.test(older) ? {} : { cursor: older }),
    });
    const history = page.requests.filter((r) => r.status !== "pending");
    // Each row by its headline and risks (no preview is fetched for a list), as the list API gives them.
    const glance = listGlance(ctx);
    return c.html(
      inboxView({
        pending,
        history,
        glance,
        ...(page.cursor === undefined ? {} : { older: page.cursor }),
        approver: c.get("approver").approver,
        now: Date.now(),
      }),
    );
  });

  type Extra = Pick<RequestViewOptions, "answer" | "asked" | "confirm" | "error">;
  const render = async (c: Ctx, review: ReviewedRequest, extra: Extra = {}, status = 200) => {
    const who = c.get("approver");
    const options = {
      csrf: csrfToken(deps.secret, who),
      approver: who.approver,
      now: Date.now(),
      pending: await pendingCount(),
      ...extra,
    };
    return c.html(requestView(requestPage(review), options), status as 200);
  };
  const showRequest = async (c: Ctx, id: string, extra: Extra = {}, status = 200) =>
    render(c, await reviewRequest(ctx, id, c.get("approver").approver), extra, status);
  // The page with a question's answer: the answer reads the previews this showing fetched, not a second fetch.
  const showAnswer = async (c: Ctx, id: string, question: string, unanswered: Extra, asked?: string) => {
    const approver = c.get("approver").approver;
    const review = await reviewRequest(ctx, id, approver);
    const answer = await answerRequestQuestion(ctx, id, question, { approver, previews: review.previews });
    return render(
      c,
      review,
      answer === null
        ? unanswered
        : { answer: { ...answer, lines: answer.lines.map(visibleText) }, ...(asked === undefined ? {} : { asked }) },
    );
  };

  app.get("/requests/:id", session, async (c) => {
    const id = c.req.param("id");
    const question = c.req.query("q");
    try {
      if (question === undefined) return await showRequest(c, id);
      // A link's text is never put in the box nor shown: the page words the question itself, and text the facts do not
      // answer shows nothing.
      return await showAnswer(c, id, question, {});
    } catch (err) {
      if (httpStatus(err) !== 404) throw err;
      return c.html(notFoundPage(`There is no request ${visibleText(id)}.`, c.get("approver").approver), 404);
    }
  });

  app.post("/requests/:id/decide", session, async (c) => {
    const id = c.req.param("id");
    const { form, csrf } = await readForm(c, deps);
    const action = form.get("action") ?? "";
    const text = (form.get("text") ?? "").trim();
    const who = c.get("approver").approver;
    // A form from before a second login (or another session) does nothing: the page again, with what was typed, to send
    // anew.
    if (!csrf) return showRequest(c, id, { error: { message: STALE_FORM, action, text } }, 403);
    let verdict: Verdict;
    try {
      const shown = form.get("shown");
      if (shown !== null && !/^[0-9a-f]{64}$/.test(shown))
        throw badRequest("shown must be the binding's sha256 from the request page", "invalid");
      const bound = shown === null ? {} : { shown };
      if (action === "approve_once") verdict = { kind: "approved_once", approver: who, ...bound };
      else if (action === "approve_remember") {
        const scope = RememberScope.safeParse(form.get("scope"));
        const lifetime = RememberLifetime.safeParse(form.get("lifetime"));
        if (!scope.success || !lifetime.success)
          throw badRequest("choose whom the rule applies to and for how long", "invalid");
        verdict = { kind: "approved_remember", approver: who, scope: scope.data, lifetime: lifetime.data, ...bound };
      } else if (action === "reject") {
        if (text === "") throw badRequest("a rejection needs a reason", "invalid");
        verdict = { kind: "rejected", approver: who, reason: text };
      } else if (action === "ask" && form.get("confirm") !== "1" && (await readRequest(ctx, id)).status === "pending") {
        if (text === "") throw badRequest("write a question or the changes you want", "invalid");
        // A question the facts answer is answered here, with what was typed kept in the box, and the request
        // keeps waiting. Anything else goes to the agent only once the person confirms it as a request for
        // changes: the page again, asking that. (On a request no longer waiting, the decision below is refused.)
        return await showAnswer(c, id, text, { confirm: text }, text);
      } else if (action === "request_more" || action === "ask") {
        if (text === "") throw badRequest("write the changes you want", "invalid");
        verdict = { kind: "request_more", approver: who, feedback: text };
      } else throw badRequest(`unknown action ${JSON.stringify(action)}`, "invalid");
      await decideRequest(ctx, id, verdict);
    } catch (err) {
      const status = httpStatus(err);
      if (!(err instanceof CountersignError) || status >= 500 || status === 404) throw err;
      return showRequest(c, id, { error: { message: visibleText(err.message), action, text } }, status);
    }
    return c.redirect(`/requests/${encodeURIComponent(id)}`, 303);
  });

  app.get("/rules", session, async (c) => {
    const who = c.get("approver");
    const rules = await ctx.rememberedRules();
    return c.html(
      rulesView({
        rules,
        describe: describeRule,
        csrf: csrfToken(deps.secret, who),
        approver: who.approver,
        pending: await pendingCount(),
        now: Date.now(),
      }),
    );
  });

  app.post("/rules/:id/forget", session, async (c) => {
    if (!(await readForm(c, deps)).csrf) throw denied("a missing or wrong CSRF token (the csrf field)", "csrf");
    await deps.state.store.forgetRule(c.req.param("id"), c.get("approver").approver);
    return c.redirect("/rules", 303);
  });
}

function asset(c: Ctx, body: string, type: string) {
  c.header("content-type", `${type}; charset=utf-8`);
  c.header("cache-control", "no-cache");
  return c.body(body);
}

/** A remembered rule in plain words (its values came from an agent's program: made visible). */
function describeRule(stored: StoredRule): string {
  const parsed = PolicyRule.safeParse(stored.rule);
  if (!parsed.success) return visibleText(JSON.stringify(stored.rule));
  return visibleText(
    `${parsed.data.decision} ${describeEffectConstraint({ op: parsed.data.op, ...(parsed.data.when ?? {}) })}`,
  );
}

/**
 * A page needs the approver session, as the approver API does (and refuses a submitter token
 * outright); without one it answers with how to log in rather than JSON.
 */
function pageSession(deps: AppDeps): MiddlewareHandler<AuthorityEnv> {
  return async (c, next) => {
    if (c.req.header("authorization") !== undefined)
      throw denied("a submitter token is refused on approver pages", "forbidden");
    const session = readSession(deps.secret, getCookie(c, SESSION_COOKIE), Date.now());
    if (session === undefined)
      return c.html(
        loginView(
          "This page needs an approver session: you are not signed in, or your session ended.",
          await typedText(c, deps),
        ),
        401,
      );
    c.set("approver", session);
    await next();
  };
}

/** What a refused stale form says: nothing was done, and why. */
const STALE_FORM =
  "this page was loaded under an earlier sign-in (you signed in again since), so nothing was done. What you typed is kept below: check it and send it again.";

/**
 * A form post: url-encoded, within the body limit; `csrf`: whether it carries the session's CSRF token in its `csrf`
 * field.
 */
async function readForm(c: Ctx, deps: AppDeps): Promise<{ form: URLSearchParams; csrf: boolean }> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type))
    throw badRequest("a form post must be application/x-www-form-urlencoded", "unsupported_media_type");
  const form = new URLSearchParams(await readText(c, deps.maxBodyBytes));
  return { form, csrf: csrfMatches(deps.secret, c.get("approver"), form.get("csrf") ?? undefined) };
}

/** The text a form post without a session carried, to show back (it was not sent); null when there is none to read. */
async function typedText(c: Ctx, deps: AppDeps): Promise<string | null> {
  if (
    c.req.method !== "POST" ||
    !/^application\/x-www-form-urlencoded\s*(;|$)/i.test(c.req.header("content-type") ?? "")
  )
    return null;
  try {
    return visibleText((new URLSearchParams(await readText(c, deps.maxBodyBytes)).get("text") ?? "").trim());
  } catch {
    return null;
  }
}

function notFoundPage(what: string, approver: string) {
  return errorView({
    status: 404,
    title: "Not found",
    message: what,
    next: html`<a href="/">go to the inbox</a>: it lists every request waiting and the history.`,
    approver,
  });
}

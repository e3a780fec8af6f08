import { html } from "hono/html";
import { visibleText } from "../../app/index.js";
import { CountersignError } from "../../model/index.js";
import { layout, type Html } from "./layout.js";

/** Who is not logged in gets this, not the JSON error: how to log in (and what they typed, which was not sent). */
export function loginView(why: string, typed: string | null = null): Html {
  return layout({
    title: "Log in",
    body: html`<h1>Log in</h1><p>${why}</p>
<p><b>Next:</b> run <code>countersign ui</code> on the machine that holds the data directory and open the link it prints (it works once, within a minute).</p>
${typed === null || typed === "" ? "" : html`<p class="label">What you typed was not sent; copy it before you log in:</p><pre class="scroll" tabindex="0" id="unsent">${typed}</pre>`}`,
  });
}

/** A page for an error a person can meet in the browser: what happened, in the UI's own frame, and what to do next. */
export function errorView(options: {
  status: number;
  title: string;
  message: string;
  next: Html;
  approver?: string;
}): Html {
  return layout({
    title: options.title,
    live: false,
    ...(options.approver === undefined ? {} : { approver: options.approver }),
    body: html`<h1>${options.title}</h1>
<p class="banner error" id="error-message">${options.message}</p>
<p id="next"><b>Next:</b> ${options.next}</p>
<p class="muted">HTTP ${options.status}</p>`,
  });
}

const inbox = html`<a href="/">go to the inbox</a>`;

/**
 * The page for any error a browser meets outside the request page's own handling: a used,
 * expired or malformed login link, no session, a stale form, an unknown page or request, a
 * refused or failed action. `signedIn`: the approver whose session the browser still has, if any.
 * An internal error's own message stays in the authority's log.
 */
export function errorPage(err: unknown, status: number, signedIn: string | undefined): Html {
  const reason = err instanceof CountersignError ? String(err.details?.reason ?? "") : "";
  const message =
    err instanceof CountersignError
      ? visibleText(err.message)
      : "The authority could not answer this (an internal error: its log has the detail).";
  const who = signedIn === undefined ? {} : { approver: signedIn };
  const login = html`run <code>countersign ui</code> on the machine that holds the data directory and open the new link it prints, within a minute.`;
  if (reason === "bad_login_link" || (reason === "forbidden" && /login link/.test(message))) {
    return errorView({
      status,
      title: "This login link does not work",
      message: message.replace(/^t/, "T"),
      next:
        signedIn === undefined
          ? login
          : html`you are still signed in as <b>${signedIn}</b>: ${inbox}. For another login, ${login}`,
      ...who,
    });
  }
  if (reason === "unauthenticated")
    return loginView("This page needs an approver session: you are not signed in, or your session ended.");
  if (reason === "csrf") {
    return errorView({
      status,
      title: "This page was out of date",
      message:
        "It was loaded under an earlier sign-in (you signed in again since, or the session ended), so nothing was done.",
      next: html`go back, reload the page and do it again; or ${inbox}.`,
      ...who,
    });
  }
  if (reason === "origin")
    return errorView({
      status,
      title: "Refused: this came from another site",
      message,
      next: html`nothing was done; ${inbox} and act from there.`,
      ...who,
    });
  if (status === 404)
    return errorView({
      status,
      title: "Not found",
      message,
      next: html`${inbox}: it lists every request waiting and the history.`,
      ...who,
    });
  if (status >= 500)
    return errorView({
      status,
      title: "Something went wrong",
      message,
      next: html`nothing was decided. Try again in a moment; if it keeps failing, look at the authority's log. Or ${inbox}.`,
      ...who,
    });
  return errorView({
    status,
    title: "Not done",
    message,
    next: html`nothing was changed. ${inbox}, or go back and try again.`,
    ...who,
  });
}

import { html } from "hono/html";

/** A piece of HTML: every string put into one through `html` is escaped. */
export type Html = ReturnType<typeof html>;

export const STYLESHEET_PATH = "/ui/app.css";
export const SCRIPT_PATH = "/ui/live.js";

/**
 * The frame of every page: the title (with the number of pending requests when known), the
 * navigation, the one stylesheet and the one script, both from this authority (the CSP allows
 * nothing else, inline script included). `request`: the request a page is about, so that the
 * script refreshes it only for that request's events. The polite status region is where the
 * script announces what changed live (new requests, a decision made elsewhere). `live: false`: a
 * page with nothing to keep current (an error page) loads no script.
 */
export function layout(options: {
  title: string;
  pending?: number;
  approver?: string;
  request?: string;
  live?: boolean;
  body: Html;
}): Html {
  const live = options.approver !== undefined && options.live !== false; // the script's event stream needs the session
  const title = `${options.pending ? `(${options.pending}) ` : ""}${options.title} · countersign`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
${live ? html`<script src="${SCRIPT_PATH}" defer></script>` : ""}
</head>
<body${options.request === undefined ? "" : html` data-request="${options.request}"`}>
<header class="top">
<nav aria-label="main"><a href="/">Inbox</a> <a href="/rules">Remembered rules</a></nav>
${options.approver === undefined ? "" : html`<span class="who">signed in as ${options.approver}</span>`}
</header>
<main id="main">
${options.body}
</main>
<div id="announce" class="visually-hidden" role="status" aria-live="polite"></div>
</body>
</html>`;
}

/** The program's file name: the agent chose it, and every page says so where it shows it. */
export function agentFileName(entry: string): Html {
  return html`<span class="agent-named"><span class="agent-label">file name chosen by the agent:</span> <span class="mono">${entry}</span></span>`;
}

/** Who decided a request, in words: a person by name, a remembered rule by its id, or the policy's own rules. */
export function decidedByWords(
  by: "person" | "policy" | "remembered_rule",
  approver: string | null,
  rules: readonly string[],
): Html {
  if (by === "person") return html`by <b>${approver ?? "a person"}</b>`;
  if (by === "remembered_rule") return html`by a remembered rule${rules.map((rule) => html` <code>${rule}</code>`)}`;
  return html`by the policy`;
}

/**
 * A time as the page shows it: absolute in the tooltip and datetime, relative in the text (kept current by the script).
 */
export function timeAgo(iso: string, now: number): Html {
  return html`<time datetime="${iso}" title="${iso}" data-ago>${ago(Date.parse(iso), now)}</time>`;
}

export function timeLeft(iso: string, now: number): Html {
  return html`<time datetime="${iso}" title="${iso}" data-left>${left(Date.parse(iso), now)}</time>`;
}

// The script (live-script.ts) is given this function, so that a page looks the same before and after it ticks.
export function span(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d`;
}
export const ago = (at: number, now: number): string => `${span(now - at)} ago`;
export const left = (at: number, now: number): string => (at <= now ? "expired" : `${span(at - now)} left`);

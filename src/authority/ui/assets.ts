import { span } from "./layout.js";

/**
 * The UI's one script: it keeps relative times current, swaps in the parts of the page marked
 * `data-live` whose version changed when the event stream says something happened (no reload, so
 * a half-typed reason survives), gives the a / r / m keys, and opens the source when a fact links
 * into it. It never builds HTML from data: the replacement parts are the server's own escaped
 * page. `span` is layout.ts's own function, so that both sides word times alike.
 */
export const LIVE_SCRIPT = `"use strict";
(() => {
  const span = ${span.toString()};
  const tick = () => {
    const now = Date.now();
    for (const t of document.querySelectorAll("time[data-ago]")) t.textContent = span(now - Date.parse(t.dateTime)) + " ago";
    for (const t of document.querySelectorAll("time[data-left]")) {
      const at = Date.parse(t.dateTime);
      t.textContent = at <= now ? "expired" : span(at - now) + " left";
    }
  };
  setInterval(tick, 10000);

  let running = false;
  let again = false;
  const refresh = async () => {
    if (running) { again = true; return; }
    running = true;
    try {
      const answer = await fetch(location.href, { credentials: "same-origin", headers: { accept: "text/html" } });
      if (!answer.ok) return;
      const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
      document.title = fresh.title;
      for (const part of fresh.querySelectorAll("[data-live]")) {
        const old = document.getElementById(part.id);
        if (old !== null && old.getAttribute("data-live") !== part.getAttribute("data-live")) old.replaceWith(document.importNode(part, true));
      }
      tick();
      document.body.dataset.updates = String(Number(document.body.dataset.updates || "0") + 1);
    } finally {
      running = false;
      if (again) { again = false; void refresh(); }
    }
  };
  const events = new EventSource("/v1/events");
  for (const type of ["pending", "resolved", "expired"]) events.addEventListener(type, () => void refresh());
  events.addEventListener("open", () => { document.body.dataset.live = "on"; });

  const KEYS = { a: "approve-once", r: "reject-text", m: "ask-text" };
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || !(e.key in KEYS)) return;
    const at = e.target;
    if (at instanceof HTMLElement && (at.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(at.tagName))) return;
    const target = document.getElementById(KEYS[e.key]);
    if (target === null) return;
    e.preventDefault();
    target.focus();
  });

  const reveal = () => {
    const target = location.hash.length > 1 ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    const details = target === null ? null : target.closest("details");
    if (details !== null && !details.open) { details.open = true; target.scrollIntoView({ block: "center" }); }
  };
  addEventListener("hashchange", reveal);
  if (document.readyState === "loading") addEventListener("DOMContentLoaded", reveal); else reveal();
})();
`;

/** Plain CSS: one column that reads at 360 px, a visible focus ring, the agent's words set apart. */
export const STYLESHEET = `:root { color-scheme: light; --fg: #1b1f24; --muted: #59636e; --line: #d0d7de; --bg-soft: #f6f8fa;
  --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --focus: #0969da; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); }
header.top { display: flex; flex-wrap: wrap; gap: .5rem 1rem; justify-content: space-between; padding: .6rem 1rem; border-bottom: 1px solid var(--line); }
header.top nav a { margin-right: 1rem; }
.who { color: var(--muted); font-size: .9rem; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; overflow-wrap: anywhere; }
h1 { font-size: 1.4rem; margin: .2rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .5rem; }
a { color: var(--focus); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .9rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
.muted { color: var(--muted); }
.banner { padding: .6rem .8rem; border-radius: 6px; border: 1px solid var(--line); background: var(--bg-soft); margin: .8rem 0; }
.banner.error { border-color: var(--bad); color: var(--bad); }
ul.rows { list-style: none; padding: 0; margin: 0; }
ul.rows li { border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem; margin: .5rem 0; }
ul.rows li a.open { font-weight: 600; overflow-wrap: anywhere; }
.meta { display: flex; flex-wrap: wrap; gap: .2rem 1rem; color: var(--muted); font-size: .9rem; }
.tag { display: inline-block; padding: 0 .45rem; border-radius: 999px; font-size: .8rem; font-weight: 600; border: 1px solid currentColor; white-space: nowrap; }
.tag.proven, .tag.auto_approved, .tag.approved_once, .tag.approved_remember, .tag.allow { color: var(--ok); }
.tag.not_proven, .tag.auto_rejected, .tag.rejected, .tag.deny, .tag.expired { color: var(--bad); }
.tag.enforced, .tag.ask, .tag.request_more, .tag.pending, .tag.unknown, .tag.withdrawn { color: var(--warn); }
section.verdict { border-left: 4px solid var(--warn); padding-left: .8rem; }
section.verdict.auto_approved { border-color: var(--ok); }
section.verdict.auto_rejected { border-color: var(--bad); }
ul.facts, ul.calls { padding-left: 1.1rem; }
ul.facts li, ul.calls li { margin: .3rem 0; overflow-wrap: anywhere; }
dl.args { display: grid; grid-template-columns: minmax(4rem, max-content) 1fr; gap: .1rem .8rem; margin: .3rem 0; }
dl.args dt { font-weight: 600; }
dl.args dd { margin: 0; overflow-wrap: anywhere; }
.source { display: block; font-size: .9rem; color: var(--muted); overflow-wrap: anywhere; }
.source.untrusted { color: var(--bad); font-weight: 600; }
.scroll { max-height: 14rem; overflow: auto; border: 1px solid var(--line); border-radius: 4px; padding: .4rem; background: var(--bg-soft); }
aside.agent { border: 2px dashed var(--warn); border-radius: 6px; padding: .6rem .8rem; background: #fff8e5; }
aside.agent h2 { margin-top: 0; }
aside.agent .label { font-size: .85rem; color: var(--warn); font-weight: 600; }
ol.source { margin: 0; padding: 0 0 0 3.5rem; background: var(--bg-soft); border: 1px solid var(--line); border-radius: 4px; overflow-x: auto; }
ol.source li { white-space: pre; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .85rem; padding-right: .5rem; }
ol.source li::marker { color: var(--muted); }
ol.source li.call { background: #fff1c2; }
ol.source li:target { outline: 2px solid var(--focus); }
details > summary { cursor: pointer; }
section.actions form { margin: .8rem 0; }
textarea { width: 100%; min-height: 4.5rem; font: inherit; padding: .4rem; }
button { font: inherit; padding: .45rem .9rem; border-radius: 6px; border: 1px solid var(--line); background: var(--bg-soft); cursor: pointer; margin: .3rem .4rem .3rem 0; }
button.primary { background: var(--ok); border-color: var(--ok); color: #fff; }
button.danger { background: var(--bad); border-color: var(--bad); color: #fff; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; }
kbd { border: 1px solid var(--line); border-bottom-width: 2px; border-radius: 3px; padding: 0 .3rem; font-size: .8rem; }
@media (max-width: 480px) { main { padding: .6rem; } dl.args { grid-template-columns: 1fr; } }
`;

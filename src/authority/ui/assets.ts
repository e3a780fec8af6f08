import { callText } from "../../model/index.js";
import { span } from "./layout.js";
import { liveScript } from "./live-script.js";

/** The UI's one script (live-script.ts), called with layout.ts's `span`. */
export const LIVE_SCRIPT = `${callText(liveScript, span.toString())};\n`;

/**
 * Plain CSS: one column that reads at 360 px, a visible focus ring, danger marked in words and colour, the agent's
 * words set apart.
 */
export const STYLESHEET = `:root { color-scheme: light; --fg: #1b1f24; --muted: #59636e; --line: #d0d7de; --bg-soft: #f6f8fa;
  --ok: #1a7f37; --bad: #cf222e; --warn: #7d5300; --focus: #0969da; --neutral: #0550ae;
  --bad-soft: #ffebe9; --warn-soft: #fff8e5; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); }
header.top { display: flex; flex-wrap: wrap; gap: .5rem 1rem; justify-content: space-between; padding: .5rem 1rem; border-bottom: 1px solid var(--line); }
header.top nav a { margin-right: 1rem; }
.who { color: var(--muted); font-size: .9rem; }
main { max-width: 60rem; margin: 0 auto; padding: .8rem 1rem 2rem; overflow-wrap: anywhere; }
h1 { font-size: 1.4rem; margin: .2rem 0 1rem; overflow-wrap: anywhere; }
h1#headline { font-size: 1.45rem; line-height: 1.3; margin: .2rem 0 .4rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .5rem; }
h2.small { font-size: 1rem; margin: .7rem 0 .3rem; }
h3 { font-size: 1rem; margin: .4rem 0; }
a { color: var(--focus); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .9rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
.muted { color: var(--muted); }
.visually-hidden { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0; }
.banner { padding: .5rem .8rem; border-radius: 6px; border: 1px solid var(--line); background: var(--bg-soft); margin: .6rem 0; }
.banner p { margin: .2rem 0; }
.banner.error { border-color: var(--bad); color: var(--bad); background: var(--bad-soft); }
ul.rows { list-style: none; padding: 0; margin: 0; }
ul.rows > li { border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem; margin: .5rem 0; }
ul.rows li a.open { font-weight: 600; overflow-wrap: anywhere; }
.meta { display: flex; flex-wrap: wrap; gap: .2rem 1rem; color: var(--muted); font-size: .9rem; margin: .2rem 0; }
.tag { display: inline-block; padding: 0 .45rem; border-radius: 999px; font-size: .8rem; font-weight: 600; border: 1px solid currentColor; white-space: nowrap; }
.tag.proven, .tag.auto_approved, .tag.approved_once, .tag.approved_remember, .tag.approved, .tag.allow { color: var(--ok); }
.tag.not_proven, .tag.auto_rejected, .tag.rejected, .tag.deny, .tag.expired { color: var(--bad); }
.tag.enforced, .tag.ask, .tag.request_more, .tag.pending, .tag.unknown, .tag.withdrawn { color: var(--warn); }
.tag.own { color: var(--neutral); }
.level { display: inline-block; padding: 0 .4rem; border-radius: 3px; font-size: .75rem; font-weight: 700; letter-spacing: .03em; text-transform: uppercase; color: #fff; white-space: nowrap; }
.level.danger { background: var(--bad); }
.level.warning { background: var(--warn); }
ul.risks { list-style: none; padding: 0; margin: .3rem 0; }
ul.risks li { border-left: 4px solid var(--warn); background: var(--warn-soft); padding: .3rem .6rem; margin: .3rem 0; border-radius: 0 4px 4px 0; }
ul.risks li.danger { border-color: var(--bad); background: var(--bad-soft); }
.markers { display: flex; flex-wrap: wrap; gap: .3rem; margin: .3rem 0 .1rem; }
.marker { display: inline-block; padding: 0 .5rem; border-radius: 999px; font-size: .8rem; font-weight: 600; border: 1px solid var(--warn); color: var(--warn); background: #fff; white-space: nowrap; }
.marker.danger { background: var(--bad); border-color: var(--bad); color: #fff; }
.agent-named .agent-label { font-style: italic; }
.agent-named .mono { border-bottom: 2px dashed var(--warn); }
section.verdict { border-left: 4px solid var(--warn); padding-left: .8rem; }
section.verdict.auto_approved { border-color: var(--ok); }
section.verdict.auto_rejected { border-color: var(--bad); }
.detail { border-top: 2px solid var(--line); margin-top: 1.2rem; }
ul.facts, ul.calls { padding-left: 1.1rem; }
ul.facts li, ul.calls li { margin: .3rem 0; overflow-wrap: anywhere; }
dl.args { display: grid; grid-template-columns: minmax(4rem, max-content) 1fr; gap: .1rem .8rem; margin: .3rem 0; }
dl.args dt { font-weight: 600; }
dl.args dd { margin: 0; overflow-wrap: anywhere; }
.source { display: block; font-size: .9rem; color: var(--muted); overflow-wrap: anywhere; }
.source.untrusted { color: var(--bad); font-weight: 600; }
.source.own .tag { margin-right: .2rem; }
.preview { margin: .5rem 0; }
.preview.failed { border-left: 4px solid var(--warn); background: var(--warn-soft); padding: .4rem .7rem; border-radius: 0 4px 4px 0; }
.preview.failed p { margin: .3rem 0 0; }
#binding ul { list-style: none; padding-left: 0; }
#binding li { border-left: 4px solid var(--line); padding: .2rem .5rem; margin: .3rem 0; }
#binding li.warn { border-color: var(--warn); background: var(--warn-soft); }
.scroll { max-height: 14rem; overflow: auto; border: 1px solid var(--line); border-radius: 4px; padding: .4rem; background: var(--bg-soft); }
aside.agent { border: 2px dashed var(--warn); border-radius: 6px; padding: .6rem .8rem; background: var(--warn-soft); margin: 1rem 0; }
aside.agent h2 { margin-top: 0; }
aside.agent .label, p.label { font-size: .85rem; color: var(--warn); font-weight: 600; }
ol.source { margin: 0; padding: 0 0 0 3.5rem; background: var(--bg-soft); border: 1px solid var(--line); border-radius: 4px; overflow-x: auto; }
ol.source li { white-space: pre; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .85rem; padding-right: .5rem; }
ol.source li::marker { color: var(--muted); }
ol.source li.call { background: #fff1c2; }
ol.source li:target { outline: 2px solid var(--focus); }
details > summary { cursor: pointer; }
section.actions { scroll-margin-top: .5rem; border: 1px solid var(--line); border-radius: 8px; padding: .3rem .8rem .6rem; margin: .8rem 0; }
section.actions h2 { margin: .3rem 0 .5rem; font-size: 1.05rem; }
section.actions.final p { margin: .3rem 0; }
.choices { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-start; }
.choices > form { margin: 0; display: flex; flex-wrap: wrap; align-items: center; gap: .3rem; }
.choices > details { flex: 0 0 auto; }
.choices > details[open] { flex: 1 1 100%; }
.choices > details > summary { display: inline-block; list-style: none; padding: .45rem .9rem; border: 1px solid #8c959f; border-radius: 6px; background: var(--bg-soft); }
.choices > details > summary::-webkit-details-marker { display: none; }
.choices > details > summary::after { content: " \\25BE"; }
.choices > details[open] > summary::after { content: " \\25B4"; }
.panel { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .8rem; margin-top: .4rem; }
.panel form { margin: 0; }
.panel p { margin: .4rem 0; }
.confirm { border: 2px solid var(--warn); background: var(--warn-soft); border-radius: 6px; padding: .5rem .8rem; }
.confirm a { margin-left: .4rem; }
.approve-why { margin: .5rem 0 0; font-size: .95rem; }
textarea { display: block; width: 100%; min-height: 3.5rem; font: inherit; padding: .4rem; margin: .3rem 0; }
button { font: inherit; padding: .45rem .9rem; border-radius: 6px; border: 1px solid #8c959f; background: var(--bg-soft); color: var(--fg); cursor: pointer; margin: .3rem .4rem .3rem 0; }
.choices > form button { margin: 0; }
button.primary { background: var(--ok); border-color: var(--ok); color: #fff; font-weight: 600; }
button.secondary { background: #fff; border-color: var(--fg); color: var(--fg); }
button.danger { background: var(--bad); border-color: var(--bad); color: #fff; }
button.warning { background: var(--warn); border-color: var(--warn); color: #fff; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; }
kbd { border: 1px solid var(--line); border-bottom-width: 2px; border-radius: 3px; padding: 0 .3rem; font-size: .8rem; }
@media (max-width: 480px) { main { padding: .5rem .6rem 2rem; } h1#headline { font-size: 1.25rem; } dl.args { grid-template-columns: 1fr; } .meta { gap: .1rem .8rem; font-size: .85rem; }
  .choices { gap: .4rem; } .choices > details > summary, .choices > form button { padding: .4rem .7rem; } section.actions kbd { display: none; } }
`;

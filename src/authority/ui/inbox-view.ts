import { createHash } from "node:crypto";
import { html } from "hono/html";
import { decidedBy, rememberedRules, visibleText, type PageRisk, type RequestGlance } from "../../app/index.js";
import type { StoredRequest } from "../../model/index.js";
import type { StoredRule } from "../../store/index.js";
import { agentFileName, decidedByWords, layout, timeAgo, timeLeft, type Html } from "./layout.js";

/** A list's version for the live script: it changes when a row comes, goes or changes status. */
const version = (rows: readonly StoredRequest[]): string =>
  createHash("sha256")
    .update(rows.map((r) => `${r.id}:${r.status}`).join(","))
    .digest("base64url")
    .slice(0, 16);

/**
 * A risk as a small marker in a row: its label, danger ones filled red, with the level in words for a screen reader.
 */
const marker = (r: PageRisk): Html =>
  html`<span class="marker ${r.level}" title="${r.text}"><span class="visually-hidden">${r.level}: </span>${r.label}</span>`;

/**
 * The inbox: requests waiting for a person, newest first, each by its headline (what the program
 * will do) with a marker per risk; then the history of resolved ones — auto-approved and
 * auto-rejected included, so that what ran without asking stays visible — with who decided.
 */
export function inboxView(options: {
  pending: StoredRequest[];
  history: StoredRequest[];
  glance: (r: StoredRequest) => RequestGlance;
  older?: string;
  approver: string;
  now: number;
}): Html {
  const { pending, history, now, glance } = options;
  const ago = (ms: number) => timeAgo(new Date(ms).toISOString(), now);
  const body = html`
<h1>Inbox</h1>
<section id="pending" data-live="${version(pending)}" aria-labelledby="h-pending">
<h2 id="h-pending">Waiting for you (<span id="pending-count">${pending.length}</span>)</h2>
${pending.length === 0 ? html`<p class="muted">Nothing waits for a decision.</p>` : ""}
<ul class="rows">${pending.map((r) => {
    const { headline, risks } = glance(r);
    return html`<li data-id="${r.id}"><span class="tag ${r.policy.kind}">${r.policy.kind.replaceAll("_", " ")}</span> <a class="open" href="/requests/${r.id}">${headline}</a>
${risks.length === 0 ? "" : html`<div class="markers">${risks.map(marker)}</div>`}
<div class="meta">${agentFileName(visibleText(r.facts.program.entry))}<span>from ${r.token}</span><span>${ago(r.created_at)}</span><span>${timeLeft(new Date(r.deadline_at).toISOString(), now)}</span></div></li>`;
  })}</ul>
</section>
<section id="history" data-live="${version(history)}" aria-labelledby="h-history">
<h2 id="h-history">History</h2>
<p class="muted">Resolved requests, newest first, with the ones the policy or a remembered rule decided alone.</p>
${history.length === 0 ? html`<p class="muted">No request was resolved yet.</p>` : ""}
<ul class="rows">${history.map((r) => {
    const kind = r.decision?.kind ?? r.status;
    return html`<li data-id="${r.id}"><span class="tag ${kind}">${kind.replaceAll("_", " ")}</span> <a class="open" href="/requests/${r.id}">${glance(r).headline}</a>
<div class="meta">${agentFileName(visibleText(r.facts.program.entry))}<span>from ${r.token}</span>${
      r.decision === null
        ? html`<span>${r.status} ${ago(r.deadline_at)}</span>`
        : html`<span class="by">${decidedByWords(decidedBy(r), r.decision.approver, rememberedRules(r).map(visibleText))}</span><span>${ago(r.decision.at)}</span>`
    }</div></li>`;
  })}</ul>
${options.older === undefined ? "" : html`<p><a href="/?older=${options.older}">Older requests</a></p>`}
</section>`;
  return layout({ title: "Inbox", pending: pending.length, approver: options.approver, body });
}

/** The rules "approve and remember" saved, each with the request it came from and a way to remove it. */
export function rulesView(options: {
  rules: StoredRule[];
  describe: (rule: StoredRule) => string;
  csrf: string;
  approver: string;
  pending: number;
  now: number;
}): Html {
  const body = html`
<h1>Remembered rules</h1>
<p class="muted">Saved by "approve and remember". While a rule applies, matching programs are approved without asking.</p>
${options.rules.length === 0 ? html`<p>No remembered rule applies.</p>` : ""}
<ul class="rows" id="rules">${options.rules.map(
    (r) => html`<li data-rule="${r.id}"><code>${r.id}</code>
<p>${options.describe(r)}</p>
<div class="meta"><span>from <a href="/requests/${r.request_id}">${r.request_id}</a></span><span>saved ${timeAgo(new Date(r.created_at).toISOString(), options.now)}</span>
<span>${r.token === null ? "every agent" : html`only token <b>${r.token}</b>`}</span><span>${r.expires_at === null ? "until removed" : html`until ${timeLeft(new Date(r.expires_at).toISOString(), options.now)}`}</span></div>
<form method="post" action="/rules/${r.id}/forget"><input type="hidden" name="csrf" value="${options.csrf}"><button class="danger">Remove<span class="visually-hidden"> the rule ${r.id}</span></button></form></li>`,
  )}</ul>`;
  return layout({ title: "Remembered rules", pending: options.pending, approver: options.approver, body });
}

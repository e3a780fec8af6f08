import { html } from "hono/html";
import { FACT_STATUS_LABELS, type FactAnswer, type PageAgentAction, type PagePreview, type PageSources, type RequestPage } from "../../app/index.js";
import { AGENT_CONNECTOR } from "../../manifest/index.js";
import { layout, timeAgo, timeLeft, type Html } from "./layout.js";

/** What the page says beside the request itself: an answer from the facts, or why a decision was refused. */
export interface RequestViewOptions {
  csrf: string;
  approver: string;
  now: number;
  pending: number;
  answer?: FactAnswer;
  error?: { message: string; action: string; text: string }; // the refused form, with what was typed
}

const line = (n: number | null): Html => (n === null ? html`` : html` <a href="#L${n}" class="line">line ${n}</a>`);
const sources = (label: string, s: PageSources): Html => html`<span class="source${s.untrusted ? " untrusted" : ""}">${label} ${s.text}</span>`;
const tag = (kind: string, text: string = kind.replaceAll("_", " ")): Html => html`<span class="tag ${kind}">${text}</span>`;

/**
 * A request, in the order DESIGN.md section 9 gives: the verdict and its rules, the facts, the
 * trusted calls, the previews, the agent's words set apart, the source (collapsed); then the
 * decision or the actions. The status banner and the actions are `data-live`: the script swaps
 * them in when a decision is made elsewhere.
 */
export function requestView(page: RequestPage, options: RequestViewOptions): Html {
  const body = html`
<h1>Request <span class="mono">${page.id}</span> ${tag(page.status)}</h1>
<p class="meta"><span>${page.entry}</span><span>from token <b>${page.submitter}</b></span><span>submitted ${timeAgo(page.created_at, options.now)}</span>
${page.final ? "" : html`<span>${timeLeft(page.deadline_at, options.now)}</span>`}<span class="mono" title="sha256 of the program">${page.program_sha256.slice(0, 16)}…</span></p>
${statusBanner(page, options)}
${options.error === undefined ? "" : html`<p class="banner error" id="error" role="alert">Not done: ${options.error.message}</p>`}
${options.answer === undefined ? "" : answerBanner(options.answer)}
<section class="verdict ${page.verdict.kind}" aria-labelledby="h-verdict">
<h2 id="h-verdict">Policy verdict: ${tag(page.verdict.kind)}</h2>
<p>${page.verdict.reason}</p>
<ul class="calls">${page.verdict.rulings.map(
    (r) => html`<li>${r.op}${line(r.line)}: ${tag(r.verdict)} ${r.rule === null ? html`<span class="muted">policy default</span>` : html`rule <code>${r.rule}</code>`} — ${r.why}</li>`,
  )}</ul>
</section>
<section aria-labelledby="h-facts">
<h2 id="h-facts">Verified facts</h2>
${page.facts.length === 0 ? html`<p class="muted">The program states no guarantees.</p>` : ""}
<ul class="facts">${page.facts.map((f) => html`<li data-status="${f.status}">${tag(f.status, FACT_STATUS_LABELS[f.status])} <code>${f.text}</code>${line(f.line)} <span class="muted">— ${f.why}</span></li>`)}</ul>
</section>
<section aria-labelledby="h-calls">
<h2 id="h-calls">Trusted calls the program can make</h2>
${page.calls.length === 0 ? html`<p>None: the program makes no trusted call.</p>` : ""}
<ul class="calls">${page.calls.map(
    (c) => html`<li><b>${c.op}</b>${line(c.line)}, ${c.count} call${c.count === "1" ? "" : "s"}
<dl class="args">${c.args.map((a) => html`<dt>${a.name}</dt><dd><code>${a.value}</code>${a.sources === null ? "" : sources("comes from", a.sources)}</dd>`)}</dl>
${c.influence === null ? "" : sources("steered by data:", c.influence)}</li>`,
  )}</ul>
</section>
${agentManifests(page)}
<section aria-labelledby="h-previews">
<h2 id="h-previews">Preview</h2>
${page.previews === null || page.previews.length === 0 ? html`<p class="muted">No preview for this request.</p>` : page.previews.map(preview)}
</section>
${binding(page)}
<aside class="agent" aria-labelledby="h-agent">
<h2 id="h-agent">The agent's words</h2>
<p class="label">Written by the agent, not checked by countersign: judge the facts above, not this.</p>
<pre class="scroll" id="rationale">${page.rationale.program === "" ? "(no rationale)" : page.rationale.program}</pre>
${page.rationale.submitter === null ? "" : html`<p class="label">Sent with the request:</p><pre class="scroll" id="note">${page.rationale.submitter}</pre>`}
</aside>
<section aria-labelledby="h-source">
<h2 id="h-source">Program source</h2>
<details id="source"><summary>${page.entry}, ${page.source.lines.length} lines (trusted calls highlighted)</summary>
<ol class="source">${page.source.lines.map((text, i) => html`<li id="L${i + 1}"${page.source.call_lines.includes(i + 1) ? html` class="call"` : ""}>${text}</li>`)}</ol>
</details>
</section>
${actions(page, options)}`;
  return layout({ title: `Request ${page.id}`, pending: options.pending, approver: options.approver, body });
}

function statusBanner(page: RequestPage, options: RequestViewOptions): Html {
  const d = page.decision;
  const content =
    d === null
      ? page.status === "pending"
        ? html`<p>Waiting for your decision.</p>`
        : html`<p>This request is ${page.status}: no decision is possible.</p>`
      : html`<p>${tag(d.kind)} by <b>${d.approver ?? "the policy"}</b> ${timeAgo(d.at, options.now)}.</p>
${d.reason === null ? "" : html`<p>Reason: ${d.reason}</p>`}
${d.kind === "request_more" ? html`<p>Sent to the agent as a request for changes (request_more): ${d.feedback}</p>` : ""}`;
  return html`<div class="banner" id="status" role="status" data-live="${page.status}">${content}</div>`;
}

function answerBanner(answer: FactAnswer): Html {
  return html`<section class="banner" id="answer" aria-labelledby="h-answer">
<h2 id="h-answer">You asked: ${answer.question}</h2>
<p><b>Answered from the analysis; the agent was not asked.</b></p>
<ul>${answer.lines.map((l) => html`<li>${l}</li>`)}</ul>
</section>`;
}

/** The action manifests the agent submitted: each step and what each call resolves it to as facts, the descriptions set apart as the agent's words. */
function agentManifests(page: RequestPage): Html {
  const kept = page.agent_manifests;
  if (kept === null) return html``;
  return html`<section id="agent-actions" aria-labelledby="h-agent-actions">
<h2 id="h-agent-actions">Actions the agent defined</h2>
<p class="muted">Submitted with the program as action manifests (sha256 <span class="mono">${kept.sha256.slice(0, 16)}…</span>, bound into the receipt: a run executes exactly these). Each runs only the trusted steps shown.</p>
${"unavailable" in kept ? html`<p class="unavailable">${kept.unavailable}</p>` : kept.actions.map(agentAction)}
</section>`;
}

function agentAction(a: PageAgentAction): Html {
  const args = (list: { name: string; value: string }[]) => html`<dl class="args">${list.map((i) => html`<dt>${i.name}</dt><dd><code>${i.value}</code></dd>`)}</dl>`;
  return html`<div class="agent-action"><h3><code>${a.op}</code> ${a.approval_required ? tag("ask", "approval required") : ""} ${a.idempotent ? tag("idempotent") : ""}</h3>
<ol class="calls">${a.steps.map(
    (s) => html`<li>step ${s.id}: <b>${s.op}</b>, built as ${args(s.inputs)}
${s.calls.map((c) => html`<p>At${line(c.line)}, ${c.count} call${c.count === "1" ? "" : "s"}, with:</p>${args(c.args)}`)}</li>`,
  )}</ol>
<aside class="agent"><p class="label">The agent's description of ${a.op}, not checked by countersign:</p><pre class="scroll">${a.description}</pre>
${a.inputs.map((i) => html`<p class="label">Input ${i.name} (${i.type}${i.required ? "" : ", optional"}):</p><pre class="scroll">${i.description}</pre>`)}</aside></div>`;
}

function preview(p: PagePreview): Html {
  if ("unavailable" in p) return html`<div class="preview"><b>${p.op}</b>${line(p.line)}: <span class="unavailable">${p.unavailable}</span></div>`;
  return html`<div class="preview"><b>${p.op}</b>${line(p.line)}${p.op.startsWith(`${AGENT_CONNECTOR}.`) ? html` <span class="muted">(an action the agent defined: the labels are its words, the values the provider's)</span>` : ""}
<dl class="args">${p.fields.map(
    (f) => html`<dt>${f.label}</dt><dd>${f.multiline ? html`<pre class="scroll">${f.value}</pre>` : f.value}</dd>`,
  )}</dl></div>`;
}

/** What approving binds: the content shown, held exactly at the send. */
function binding(page: RequestPage): Html {
  const b = page.binding;
  if (b === null) return html``;
  return html`<section aria-labelledby="h-binding" id="binding">
<h2 id="h-binding">What approving binds</h2>
<ul>${b.calls.map((c) => html`<li${c.bound ? "" : html` class="warn"`}>${c.text}</li>`)}${b.runtime.map((r) => html`<li class="warn">${r.text}</li>`)}</ul>
</section>`;
}

function actions(page: RequestPage, options: RequestViewOptions): Html {
  if (page.final) return html`<section class="actions" id="actions" data-live="${page.status}"></section>`;
  // An approval posts the digest of the content this page showed it binds.
  const shown = (action: string): Html => (page.binding !== null && action.startsWith("approve") ? html`<input type="hidden" name="shown" value="${page.binding.sha256}">` : html``);
  const form = (action: string, content: Html): Html =>
    html`<form method="post" action="/requests/${page.id}/decide"><input type="hidden" name="csrf" value="${options.csrf}"><input type="hidden" name="action" value="${action}">${shown(action)}${content}</form>`;
  const typed = (action: string) => (options.error?.action === action ? options.error.text : "");
  const remember = page.remember;
  const cannot =
    remember === null || remember.rules.length === 0
      ? "the program makes no trusted call"
      : remember.refused.length > 0
        ? remember.refused.map((r) => `${r.op}: ${r.why}`).join("; ")
        : null;
  return html`<section class="actions" id="actions" data-live="${page.status}" aria-labelledby="h-actions">
<h2 id="h-actions">Your decision</h2>
${form("approve_once", html`<button class="primary" id="approve-once">Approve once</button> <kbd>a</kbd> <span class="muted">this run only</span>`)}
<details id="remember"><summary>Approve and remember…</summary>
${
  cannot !== null || remember === null
    ? html`<p>This approval cannot be remembered: ${cannot}. Approve once instead.</p>`
    : form(
        "approve_remember",
        html`${remember.rules.map(
          (r) => html`<p>Saves the rule <code>${r.id}</code>: ${r.text}.</p><pre class="scroll rule">${r.rule}</pre><p><b>What else it lets through:</b> ${r.also}</p>`,
        )}
<fieldset><legend>Whom it applies to</legend>
<label><input type="radio" name="scope" value="token" checked> only this agent's token (<b>${page.submitter}</b>)</label><br>
<label><input type="radio" name="scope" value="everyone"> every agent</label></fieldset>
<fieldset><legend>For how long</legend>
<label><input type="radio" name="lifetime" value="hour" checked> one hour</label><br>
<label><input type="radio" name="lifetime" value="day"> one day</label><br>
<label><input type="radio" name="lifetime" value="forever"> until removed</label></fieldset>
<button class="primary" id="approve-remember">Approve and remember</button>`,
      )
}
</details>
${form("reject", html`<label for="reject-text">Reject, with the reason the agent gets (required) <kbd>r</kbd></label>
<textarea id="reject-text" name="text" required maxlength="10000">${typed("reject")}</textarea>
<button class="danger" id="reject">Reject</button>`)}
${form("ask", html`<label for="ask-text">Ask a question or request changes <kbd>m</kbd></label>
<textarea id="ask-text" name="text" required maxlength="10000">${typed("ask")}</textarea>
<p class="muted">A question the facts answer (who will be emailed? how many emails? which files will be written? which hosts?) is answered here at once; anything else goes back to the agent as a request for changes, and this request ends.</p>
<button id="ask">Ask / request changes</button>`)}
</section>`;
}

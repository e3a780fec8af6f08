import { html } from "hono/html";
import {
  callsWords,
  FACT_STATUS_LABELS,
  type FactAnswer,
  type PageAgentAction,
  type PagePreview,
  type PageRisk,
  type PageSources,
  type RequestPage,
} from "../../app/index.js";
import { AGENT_CONNECTOR } from "../../manifest/index.js";
import { agentFileName, decidedByWords, layout, timeAgo, timeLeft, type Html } from "./layout.js";

/**
 * What the page says beside the request itself: an answer from the facts (with what was asked,
 * kept in the box), text that is no question the facts answer and waits for the person to confirm
 * it as a request for changes, or why a decision was refused (with what was typed).
 */
export interface RequestViewOptions {
  csrf: string;
  approver: string;
  now: number;
  pending: number;
  answer?: FactAnswer;
  asked?: string; // the text the answer was asked with: it stays in the box
  confirm?: string; // not answered from the facts: sent only once the person confirms it as a request for changes
  error?: { message: string; action: string; text: string }; // the refused form, with what was typed
}

/** The risks that make approving without a look a mistake: Approve is then not the bright default. */
const CAUTION: ReadonlySet<PageRisk["kind"]> = new Set(["preview_unavailable", "refused_at_send"]);

const line = (n: number | null): Html => (n === null ? html`` : html` <a href="#L${n}" class="line">line ${n}</a>`);
const tag = (kind: string, text: string = kind.replaceAll("_", " ")): Html =>
  html`<span class="tag ${kind}">${text}</span>`;

/**
 * Where a value or a call's control comes from: red only for third-party content; the program's own earlier call is
 * labelled as such.
 */
const sources = (label: string, s: PageSources): Html => {
  const kind = s.untrusted ? " untrusted" : s.own ? " own" : "";
  return html`<span class="source${kind}">${!s.untrusted && s.own ? html`<span class="tag own">the program's own earlier call</span> ` : ""}${label} ${s.text}</span>`;
};

/** A risk as a list item: its level as a word (never colour alone), its label and its sentence. */
export const riskItem = (r: PageRisk): Html =>
  html`<li class="risk ${r.level}" data-kind="${r.kind}"><span class="level ${r.level}">${r.level === "danger" ? "Danger" : "Warning"}</span> <b>${r.label}:</b> ${r.text}</li>`;

/**
 * A request: first what a person decides on, within the first screen — the headline (what the
 * program will do), the status and the policy's verdict, the risks ranked, the actions — then the
 * full detail: the policy's rulings, the facts, the trusted calls, the previews, what approving
 * binds, the agent's words set apart, the source (collapsed). The status banner and the actions
 * are `data-live`: the script swaps them in when a decision is made elsewhere.
 */
export function requestView(page: RequestPage, options: RequestViewOptions): Html {
  const body = html`
<h1 id="headline">${page.headline}</h1>
<p class="meta"><span>request <span class="mono">${page.id}</span></span> ${agentFileName(page.entry)} <span>from token <b>${page.submitter}</b></span> <span>submitted ${timeAgo(page.created_at, options.now)}</span></p>
${statusBanner(page, options)}
${options.error === undefined ? "" : html`<p class="banner error" id="error" role="alert">Not done: ${options.error.message}</p>`}
<section id="risks" aria-labelledby="h-risks">
<h2 id="h-risks" class="small">What to weigh</h2>
${page.risks.length === 0 ? html`<p class="muted" id="no-risk">Nothing stands out: no untrusted value, no file outside your folders, no mail to others, no unbounded call.</p>` : html`<ul class="risks">${page.risks.map(riskItem)}</ul>`}
</section>
${actions(page, options)}
<div class="detail">
<section class="verdict ${page.verdict.kind}" aria-labelledby="h-verdict">
<h2 id="h-verdict">Policy verdict: ${tag(page.verdict.kind)}</h2>
<p>${page.verdict.reason}</p>
<ul class="calls">${page.verdict.rulings.map(
    (r) =>
      html`<li>${r.op}${line(r.line)}: ${tag(r.verdict)} ${r.rule === null ? html`<span class="muted">policy default</span>` : html`rule <code>${r.rule}</code>`} — ${r.why}</li>`,
  )}</ul>
</section>
<section aria-labelledby="h-facts">
<h2 id="h-facts">Verified facts</h2>
${page.facts.length === 0 ? html`<p class="muted">The program states no guarantees.</p>` : ""}
<ul class="facts">${page.facts.map((f) => html`<li data-status="${f.status}">${tag(f.status, FACT_STATUS_LABELS[f.status])} ${f.text}${line(f.line)} <span class="muted">— ${f.why}</span></li>`)}</ul>
</section>
<section aria-labelledby="h-calls">
<h2 id="h-calls">Trusted calls the program can make</h2>
${page.calls.length === 0 ? html`<p>None: the program makes no trusted call.</p>` : ""}
<ul class="calls">${page.calls.map(
    (c) => html`<li><b>${c.op}</b>${line(c.line)}, ${callsWords(c.count)}
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
<pre class="scroll" tabindex="0" id="rationale">${page.rationale.program === "" ? "(no rationale)" : page.rationale.program}</pre>
${page.rationale.submitter === null ? "" : html`<p class="label">Sent with the request:</p><pre class="scroll" tabindex="0" id="note">${page.rationale.submitter}</pre>`}
</aside>
<section aria-labelledby="h-source">
<h2 id="h-source">Program source</h2>
<p class="muted">sha256 <span class="mono">${page.program_sha256}</span></p>
<details id="source"><summary>${agentFileName(page.entry)}, ${page.source.lines.length} ${page.source.lines.length === 1 ? "line" : "lines"} (trusted calls highlighted)</summary>
<ol class="source">${page.source.lines.map((text, i) => html`<li id="L${i + 1}"${page.source.call_lines.includes(i + 1) ? html` class="call"` : ""}>${text}</li>`)}</ol>
</details>
</section>
</div>`;
  return layout({
    title: `Request ${page.id}`,
    pending: options.pending,
    approver: options.approver,
    request: page.id,
    body,
  });
}

/** Who decided, in words: a person by name, a remembered rule by its id, or the policy. */
function decided(page: RequestPage, options: RequestViewOptions): Html {
  const d = page.decision!;
  return html`<p class="decided">${tag(d.kind)} ${decidedByWords(d.by, d.approver, d.rules)} ${timeAgo(d.at, options.now)}.</p>
${d.reason === null ? "" : html`<p>Reason: ${d.reason}</p>`}
${d.kind === "request_more" ? html`<p>Sent to the agent as a request for changes (request_more): ${d.feedback}</p>` : ""}`;
}

function statusBanner(page: RequestPage, options: RequestViewOptions): Html {
  const content =
    page.decision !== null
      ? decided(page, options)
      : page.status === "pending"
        ? html`<p>${tag(page.verdict.kind, `policy: ${page.verdict.kind.replaceAll("_", " ")}`)} Waiting for your decision, ${timeLeft(page.deadline_at, options.now)}.</p>`
        : html`<p>${tag(page.status)} This request is ${page.status.replaceAll("_", " ")}: no decision is possible.</p>`;
  return html`<div class="banner status" id="status" data-live="${page.status}">${content}</div>`;
}

function answerBanner(answer: FactAnswer): Html {
  return html`<section class="banner answer" id="answer" aria-labelledby="h-answer">
<h3 id="h-answer">You asked: ${answer.question}</h3>
<p><b>Answered from the analysis; the agent was not asked.</b></p>
<ul>${answer.lines.map((l) => html`<li>${l}</li>`)}</ul>
</section>`;
}

/**
 * The action manifests the agent submitted: each step and what each call resolves it to as facts, the descriptions set
 * apart as the agent's words.
 */
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
  const args = (list: { name: string; value: string }[]) =>
    html`<dl class="args">${list.map((i) => html`<dt>${i.name}</dt><dd><code>${i.value}</code></dd>`)}</dl>`;
  return html`<div class="agent-action"><h3><code>${a.op}</code> ${a.approval_required ? tag("ask", "approval required") : ""} ${a.idempotent ? tag("idempotent") : ""}</h3>
<ol class="calls">${a.steps.map(
    (s) => html`<li>step ${s.id}: <b>${s.op}</b>, built as ${args(s.inputs)}
${s.calls.map((c) => html`<p>At${line(c.line)}, ${callsWords(c.count)}, with:</p>${args(c.args)}`)}</li>`,
  )}</ol>
<aside class="agent" aria-label="The agent's description of ${a.op}"><p class="label">The agent's description of ${a.op}, not checked by countersign:</p><pre class="scroll" tabindex="0">${a.description}</pre>
${a.inputs.map((i) => html`<p class="label">Input ${i.name} (${i.type}${i.required ? "" : ", optional"}):</p><pre class="scroll" tabindex="0">${i.description}</pre>`)}</aside></div>`;
}

/** One preview: its fields, or — a warning, in words and style — why it could not be had. */
function preview(p: PagePreview): Html {
  if ("unavailable" in p) {
    return html`<div class="preview failed" role="note"><span class="level warning">Warning</span> <b>${p.op}</b>${line(p.line)}: <span class="unavailable">${p.unavailable}</span>
<p>You cannot see what this call would act on. Approve only if you know it from elsewhere; otherwise reject or ask for changes.</p></div>`;
  }
  return html`<div class="preview"><b>${p.op}</b>${line(p.line)}${p.op.startsWith(`${AGENT_CONNECTOR}.`) ? html` <span class="muted">(an action the agent defined: the labels are its words, the values the provider's)</span>` : ""}
<dl class="args">${p.fields.map(
    (f) =>
      html`<dt>${f.label}</dt><dd>${f.multiline ? html`<pre class="scroll" tabindex="0">${f.value}</pre>` : f.value}</dd>`,
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

/**
 * The actions, compact enough to sit in the first screen: Approve once, then Reject, Ask and
 * Approve-and-remember each open their own panel. Approve is the bright default only when nothing
 * stops a person from seeing what it does. Once the request is final, the region says who decided
 * what (and keeps what was typed here, unsent).
 */
function actions(page: RequestPage, options: RequestViewOptions): Html {
  const typedHere = options.error !== undefined && options.error.text !== "" ? options.error.text : null;
  if (page.final) {
    return html`<section class="actions final" id="actions" data-live="${page.status}" aria-labelledby="h-actions">
<h2 id="h-actions">Decision</h2>
${page.decision === null ? html`<p>${tag(page.status)} No decision was made: the request is ${page.status.replaceAll("_", " ")}.</p>` : decided(page, options)}
${typedHere === null ? "" : html`<p class="label">What you typed was not sent:</p><pre class="scroll" tabindex="0" id="unsent">${typedHere}</pre>`}
</section>`;
  }
  // An approval posts the digest of the content this page showed it binds.
  const shown = (action: string): Html =>
    page.binding !== null && action.startsWith("approve")
      ? html`<input type="hidden" name="shown" value="${page.binding.sha256}">`
      : html``;
  // The ask box's answer or confirm step comes back where the person was looking: at the actions.
  const form = (action: string, content: Html, id?: string): Html =>
    html`<form method="post" action="/requests/${page.id}/decide${action === "ask" ? "#actions" : ""}"${id === undefined ? "" : html` id="${id}"`}><input type="hidden" name="csrf" value="${options.csrf}"><input type="hidden" name="action" value="${action}">${shown(action)}${content}</form>`;
  const typed = (...actions: string[]) =>
    options.error !== undefined && actions.includes(options.error.action) ? options.error.text : "";
  const open = (yes: boolean): Html => (yes ? html` open` : html``);
  const remember = page.remember;
  const cannot =
    remember === null || remember.rules.length === 0
      ? "the program makes no trusted call"
      : remember.refused.length > 0
        ? remember.refused.map((r) => `${r.op}: ${r.why}`).join("; ")
        : null;
  const caution = page.risks.filter((r) => CAUTION.has(r.kind));
  const asking = options.answer !== undefined || options.confirm !== undefined || typed("ask", "request_more") !== "";
  return html`<section class="actions" id="actions" data-live="${page.status}" aria-labelledby="h-actions">
<h2 id="h-actions">Your decision</h2>
<div class="choices">
${form(
  "approve_once",
  html`<button class="${caution.length > 0 ? "secondary" : "primary"}" id="approve-once"${caution.length > 0 ? html` aria-describedby="approve-why"` : ""}>Approve once</button> <kbd>a</kbd>`,
  "approve-form",
)}
<details id="reject-box"${open(typed("reject") !== "")}><summary>Reject…</summary>
<div class="panel">${form(
    "reject",
    html`<label for="reject-text">The reason the agent gets (required) <kbd>r</kbd></label>
<textarea id="reject-text" name="text" required maxlength="10000" rows="3">${typed("reject")}</textarea>
<button class="danger" id="reject">Reject</button>`,
    "reject-form",
  )}</div></details>
<details id="ask-box"${open(asking)}><summary>Ask or request changes…</summary>
<div class="panel">
<div id="ask-answer" aria-live="polite">${options.answer === undefined ? "" : answerBanner(options.answer)}</div>
${options.confirm === undefined ? askForm(options.asked ?? typed("ask"), form) : confirmPanel(page, options.confirm, form)}
</div></details>
<details id="remember"${open(options.error?.action === "approve_remember")}><summary>Approve and remember…</summary>
<div class="panel">${
    cannot !== null || remember === null
      ? html`<p>This approval cannot be remembered: ${cannot ?? ""}. Approve once instead.</p>`
      : form(
          "approve_remember",
          html`${remember.rules.map(
            (r) =>
              html`<p>Saves the rule <code>${r.id}</code>: ${r.text}.</p><pre class="scroll rule" tabindex="0">${r.rule}</pre><p><b>What else it lets through:</b> ${r.also}</p>`,
          )}
<fieldset><legend>Whom it applies to</legend>
<label><input type="radio" name="scope" value="token" checked> only this agent's token (<b>${page.submitter}</b>)</label><br>
<label><input type="radio" name="scope" value="everyone"> every agent</label></fieldset>
<fieldset><legend>For how long</legend>
<label><input type="radio" name="lifetime" value="hour" checked> one hour</label><br>
<label><input type="radio" name="lifetime" value="day"> one day</label><br>
<label><input type="radio" name="lifetime" value="forever"> until removed</label></fieldset>
<button class="${caution.length > 0 ? "secondary" : "primary"}" id="approve-remember">Approve and remember</button>`,
        )
  }</div></details>
</div>
${caution.length === 0 ? "" : html`<p class="approve-why" id="approve-why"><span class="level danger">Look first</span> Approve is not the default here: ${[...new Set(caution.map((r) => r.label))].join(" and ")} (see above).</p>`}
</section>`;
}

/**
 * The ask box: a question the facts answer is answered here; anything else is confirmed before it goes to the agent.
 */
function askForm(text: string, form: (action: string, content: Html, id?: string) => Html): Html {
  return form(
    "ask",
    html`<label for="ask-text">Your question, or the changes you want <kbd>m</kbd></label>
<textarea id="ask-text" name="text" required maxlength="10000" rows="3" aria-describedby="ask-help">${text}</textarea>
<p class="muted" id="ask-help">A question the facts answer (who gets mail, how many, which files, which hosts) is answered here and the request keeps waiting. Anything else can go to the agent as a request for changes: you confirm it first, and sending it ends this request.</p>
<button id="ask">Ask</button>`,
    "ask-form",
  );
}

/**
 * Text the facts do not answer: it goes to the agent only as a request for changes the person confirms, which ends the
 * request.
 */
function confirmPanel(
  page: RequestPage,
  text: string,
  form: (action: string, content: Html, id?: string) => Html,
): Html {
  return html`<div class="confirm" id="confirm">
<p role="alert"><b>Countersign cannot answer this from the facts.</b> Sent, it goes to the agent as a request for changes, and this request ends: the agent may then submit a new program.</p>
${form(
  "request_more",
  html`<label for="confirm-text">The request for changes the agent gets</label>
<textarea id="confirm-text" name="text" required maxlength="10000" rows="3">${text}</textarea>
<button class="warning" id="confirm-request-more">Send to the agent and end this request</button>
<a href="/requests/${page.id}" id="keep-waiting">Do not send: keep the request waiting</a>`,
  "confirm-form",
)}
</div>`;
}

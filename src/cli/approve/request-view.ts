import {
  callsWords,
  FACT_STATUS_LABELS,
  type PagePreview,
  type PageSources,
  type RequestPage,
} from "../../app/index.js";
import { AGENT_CONNECTOR } from "../../manifest/index.js";
import { duration, line, type Line, DECISION_WORDS } from "./lines.js";

// The request page (the one view model of both approval surfaces) as terminal lines. First what a
// person decides on, within the first screen: what the program will do (the headline), the
// verdict or the decision, the risks ranked, danger first and said in words. Then an answer to a
// question asked here, then the full detail in the browser page's order: the policy's rulings,
// the facts with their status, the trusted calls, the previews, what approving binds, the agent's
// own words set apart, the source. Pure: the screen neutralises and wraps what this returns.

export interface ViewOptions {
  now: number; // ms since the epoch
  showSource: boolean;
  fullPreviews?: boolean; // every line of a multiline preview field, not only the first PREVIEW_LINES
  answer?: ShownAnswer; // a question asked here and answered from the facts
}

/** A question asked from the terminal and countersign's answer, from the facts. */
export interface ShownAnswer {
  question: string; // as countersign understood it
  lines: string[];
}

/** The lines of a multiline preview field (a mail's body) shown before "… more lines". */
export const PREVIEW_LINES = 12;

const MARK_WIDTH = 22;
const AGENT_GUTTER = "  │ ";
const BLOCK_GUTTER = "        │ ";

/** What a program's file name is: the agent chose it, so it is marked as such wherever it appears. */
export const agentNamed = (entry: string): string => `${entry} (agent-chosen name)`;

export function requestLines(page: RequestPage, options: ViewOptions): Line[] {
  return [
    ...glance(page, options.now),
    ...answer(options.answer),
    ...verdict(page),
    ...facts(page),
    ...calls(page),
    ...agentManifests(page),
    ...previews(page, options.fullPreviews === true),
    ...binding(page),
    ...agentWords(page),
    ...source(page, options.showSource),
  ];
}

/** The first screen: who and when, what it will do, the verdict or who decided, the risks most serious first. */
function glance(page: RequestPage, now: number): Line[] {
  const when = page.final ? page.status : `${duration(Date.parse(page.deadline_at) - now)} left`;
  const lines = [
    line(
      `Request ${page.id} · from agent ${page.submitter} · ${duration(now - Date.parse(page.created_at))} old · ${when}`,
      "title",
    ),
    line(`Program ${agentNamed(page.entry)}`, "dim"),
    line(""),
    line(page.headline, "title"),
  ];
  const d = page.decision;
  if (d !== null) {
    lines.push(line(`Decided: ${decisionWords(page)} at ${d.at}`, d.kind.includes("approved") ? "ok" : "warn"));
    if (d.reason !== null) lines.push(line(`  reason: ${d.reason}`));
    if (d.feedback !== null) lines.push(line(`  feedback to the agent: ${d.feedback}`));
  } else if (page.final) lines.push(line(`Not decided: the request ${page.status}.`, "warn"));
  else
    lines.push(
      line(
        `Verdict: ${VERDICT_WORDS[page.verdict.kind]}${verdictWhy(page)}`,
        page.verdict.kind === "auto_rejected" ? "warn" : undefined,
      ),
    );
  if (page.risks.length === 0)
    lines.push(line("No risk flagged: no untrusted values, no mail to others, no files outside your folders.", "dim"));
  for (const r of page.risks)
    lines.push(r.level === "danger" ? line(`DANGER: ${r.text}`, "warn") : line(`warning: ${r.text}`));
  lines.push(
    line(
      page.final
        ? "The full detail follows (Space: next page)."
        : "The full detail follows (Space: next page); decide with the keys at the bottom.",
      "dim",
    ),
  );
  return lines;
}

/**
 * Which calls the verdict is about, in a few words: the policy's reason is its rulings over again,
 * and they follow in full below.
 */
function verdictWhy(page: RequestPage): string {
  const { kind, reason, rulings } = page.verdict;
  const deciding = rulings.filter(
    (r) => r.verdict === (kind === "ask" ? "ask" : kind === "auto_rejected" ? "deny" : "allow"),
  );
  if (deciding.length === 0) return ` — ${reason}`;
  const where = [...new Set(deciding.map((r) => `${r.op} at line ${r.line}`))].join(", ");
  if (kind === "ask")
    return ` — ${deciding.length} of ${rulings.length} ${rulings.length === 1 ? "call needs" : "calls need"} a person: ${where} (why: under Policy rulings)`;
  return ` — ${where} (why: under Policy rulings)`;
}

const VERDICT_WORDS: Readonly<Record<RequestPage["verdict"]["kind"], string>> = {
  ask: "needs your decision",
  auto_approved: "approved by the policy",
  auto_rejected: "rejected by the policy",
};

/** A decision and who made it: a person by name, the policy, or a remembered rule by its id. */
export function decisionWords(page: Pick<RequestPage, "decision" | "verdict">): string {
  const d = page.decision;
  if (d === null) return "not decided";
  const kind = DECISION_WORDS[d.kind] ?? d.kind;
  if (d.by === "person") return `${kind} by ${d.approver ?? "a person"}`;
  if (d.by === "remembered_rule")
    return `${kind} by a remembered rule${d.rules.length === 0 ? "" : ` ${d.rules.join(", ")}`}`;
  return `${kind} by the policy`;
}

/** The answer to a question asked here: near the top, above the detail. */
function answer(shown: ShownAnswer | undefined): Line[] {
  if (shown === undefined) return [];
  return [
    ...heading(`Your question: ${shown.question}`),
    ...shown.lines.map((l) => line(`  ${l}`)),
    line("  (answered here from the facts: nothing was sent to the agent, the request still waits)", "dim"),
  ];
}

/** The policy's word on each call (its reason is in the verdict above). */
function verdict(page: RequestPage): Line[] {
  const { rulings } = page.verdict;
  if (rulings.length === 0) return [];
  return [
    ...heading("Policy rulings"),
    ...rulings.map((r) =>
      line(
        `  ${r.op} at line ${r.line}: ${r.verdict} by ${r.rule === null ? "the policy default or an approval floor" : `rule ${r.rule}`} — ${r.why}`,
      ),
    ),
  ];
}

function facts(page: RequestPage): Line[] {
  const items = page.facts.map((f) =>
    line(
      `  ${FACT_STATUS_LABELS[f.status].padEnd(MARK_WIDTH)} ${f.text} — ${f.why}${f.line === null ? "" : ` (line ${f.line})`}`,
      f.status === "proven" || f.status === "enforced" ? undefined : "warn",
    ),
  );
  return [
    ...heading("Verified facts"),
    ...(items.length > 0 ? items : [line("  (the program states no guarantees)", "dim")]),
  ];
}

function calls(page: RequestPage): Line[] {
  const lines = [...heading("Trusted calls the program can make")];
  if (page.calls.length === 0) lines.push(line("  none: the program makes no trusted call", "dim"));
  for (const c of page.calls) {
    lines.push(line(`  ${c.op} at line ${c.line}, ${callsWords(c.count)}`));
    for (const a of c.args) {
      lines.push(line(`      ${a.name} ${a.value}`));
      if (a.sources !== null) lines.push(sourcesLine("        comes from", a.sources));
    }
    if (c.influence !== null) lines.push(sourcesLine("      steered by data:", c.influence));
  }
  return lines;
}

/**
 * Where a value comes from: a warning only when third-party content may have chosen it (the
 * page already names a source that is the program's own earlier call as such).
 */
function sourcesLine(lead: string, sources: PageSources): Line {
  return sources.untrusted ? line(`${lead} ${sources.text}`, "warn") : line(`${lead} ${sources.text}`);
}

function previews(page: RequestPage, full: boolean): Line[] {
  const shown = page.previews ?? [];
  return [
    ...heading("Preview (fetched from the provider for this showing)"),
    ...(shown.length === 0 ? [line("  No preview for this request.", "dim")] : shown.flatMap((p) => preview(p, full))),
  ];
}

/** What approving binds: per resolved call the page's sentence; a call that binds nothing is a warning. */
function binding(page: RequestPage): Line[] {
  const b = page.binding;
  if (b === null) return [];
  return [
    ...heading("What approving binds"),
    ...b.calls.map((c) => line(`  ${c.text}`, c.bound ? undefined : "warn")),
    ...b.runtime.map((r) => line(`  ${r.text}`, "warn")),
    line(`  (binding ${b.sha256})`, "dim"),
  ];
}

/**
 * One call's preview: its fields, multiline ones as an indented block under a gutter, at most
 * PREVIEW_LINES of it unless `full`; or why there is none, as given.
 */
function preview(p: PagePreview, full: boolean): Line[] {
  const title = `  ${p.op}${p.line === null ? "" : ` at line ${p.line}`}:`;
  if ("unavailable" in p) return [line(`${title} ${p.unavailable}`, "warn")];
  const lines = [line(title)];
  if (p.op.startsWith(`${AGENT_CONNECTOR}.`))
    lines.push(line("      (an action the agent defined: the labels are its words, the values the provider's)", "dim"));
  for (const f of p.fields) {
    if (!f.multiline) lines.push(line(`      ${f.label}: ${f.value}`));
    else lines.push(line(`      ${f.label}:`), ...block(splitLines(f.value.replace(/\n$/, "")), full));
  }
  return lines;
}

/**
 * A multiline field's lines under the block's gutter: the first PREVIEW_LINES, and how many more there are, unless
 * `full`.
 */
function block(lines: string[], full: boolean): Line[] {
  const cut = !full && lines.length > PREVIEW_LINES + 1; // one line more than the limit is shown rather than announced
  const shown = (cut ? lines.slice(0, PREVIEW_LINES) : lines).map((text): Line => ({ gutter: BLOCK_GUTTER, text }));
  if (cut) shown.push(line(`        … ${lines.length - PREVIEW_LINES} more lines (p: show all)`, "dim"));
  else if (lines.length > PREVIEW_LINES + 1)
    shown.push(line(`        (all ${lines.length} lines shown; p: fold)`, "dim"));
  return shown;
}

/** Text the agent wrote, each line under the agent's gutter. */
const words = (text: string): Line[] =>
  splitLines(text).map((l) => ({ gutter: AGENT_GUTTER, text: l, style: "agent" }));

/**
 * The action manifests the agent submitted: each step and what each call resolves it to as facts, the descriptions as
 * the agent's words.
 */
function agentManifests(page: RequestPage): Line[] {
  const kept = page.agent_manifests;
  if (kept === null) return [];
  const lines = heading(
    `Actions the agent defined (manifests sha256 ${kept.sha256}, bound into the receipt: a run executes exactly these)`,
  );
  if ("unavailable" in kept) return [...lines, line(`  ${kept.unavailable}`, "warn")];
  for (const a of kept.actions) {
    lines.push(
      line(`  ${a.op}${a.approval_required ? " · approval required" : ""}${a.idempotent ? " · idempotent" : ""}`),
    );
    for (const s of a.steps) {
      lines.push(
        line(`    step ${s.id}: ${s.op}, built as`),
        ...s.inputs.map((i) => line(`        ${i.name} ${i.value}`)),
      );
      for (const c of s.calls)
        lines.push(
          line(`      at line ${c.line}, ${callsWords(c.count)}, with`),
          ...c.args.map((arg) => line(`        ${arg.name} ${arg.value}`)),
        );
    }
    lines.push(line(`    The agent's description of ${a.op} (not verified):`, "dim"), ...words(a.description));
    for (const i of a.inputs)
      lines.push(
        line(`    input ${i.name} (${i.type}${i.required ? "" : ", optional"}):`, "dim"),
        ...words(i.description),
      );
  }
  return lines;
}

function agentWords(page: RequestPage): Line[] {
  const { program, submitter } = page.rationale;
  return [
    ...heading("The agent's words (not verified: what it says, not what the program does)"),
    ...(program.trim() === "" ? [line("  (no rationale)", "dim")] : words(program)),
    ...(submitter === null || submitter.trim() === ""
      ? []
      : [line("  Sent with the request:", "dim"), ...words(submitter)]),
  ];
}

function source(page: RequestPage, show: boolean): Line[] {
  const { lines: text, call_lines } = page.source;
  const title = `Source: ${agentNamed(page.entry)}, ${text.length} lines, sha256 ${page.program_sha256}`;
  if (!show) return heading(`${title} (v: show)`);
  const calls = new Set(call_lines);
  const width = String(text.length).length;
  return [
    ...heading(`${title} (v: hide; ▶ marks a trusted call)`),
    ...text.map(
      (l, i): Line => ({
        gutter: `${calls.has(i + 1) ? "▶" : " "}${String(i + 1).padStart(width)} │ `,
        text: l,
        ...(calls.has(i + 1) ? { style: "mark" as const } : {}),
      }),
    ),
  ];
}

const splitLines = (text: string): string[] => text.split(/\r\n|\n|\r/);

// A blank line above each section: sections stay apart when the screen wraps them.
const heading = (text: string): Line[] => [line(""), line(`── ${text}`, "heading")];

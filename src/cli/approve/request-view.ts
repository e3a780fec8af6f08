import { FACT_STATUS_LABELS, type PagePreview, type RequestPage } from "../../app/index.js";
import { AGENT_CONNECTOR } from "../../manifest/index.js";
import { duration, line, type Line } from "./lines.js";

// The request page (the one view model of both approval surfaces) as terminal lines, with the
// same content in the same order as the browser's request view: who sent it and the decision,
// the verdict and its rulings, the facts with their status, the trusted calls, the previews, the
// agent's own words set apart, the source. Pure: the screen neutralises and wraps what this returns.

export interface ViewOptions {
  now: number; // ms since the epoch
  showSource: boolean;
}

const MARK_WIDTH = 22;
const AGENT_GUTTER = "  │ ";
const BLOCK_GUTTER = "        │ ";

export function requestLines(page: RequestPage, options: ViewOptions): Line[] {
  return [...header(page, options.now), ...verdict(page), ...facts(page), ...calls(page), ...agentManifests(page), ...previews(page), ...binding(page), ...agentWords(page), ...source(page, options.showSource)];
}

function header(page: RequestPage, now: number): Line[] {
  const when = page.final ? page.status : `expires in ${duration(Date.parse(page.deadline_at) - now)}`;
  const lines = [line(`Request ${page.id} from agent ${page.submitter} · submitted ${duration(now - Date.parse(page.created_at))} ago · ${when}`, "title")];
  const d = page.decision;
  if (d !== null) {
    lines.push(line(`Decided: ${d.kind} by ${d.approver ?? "the policy"} at ${d.at}`, d.kind.includes("approved") ? "ok" : "warn"));
    if (d.reason !== null) lines.push(line(`  reason: ${d.reason}`));
    if (d.feedback !== null) lines.push(line(`  feedback to the agent: ${d.feedback}`));
  }
  return lines;
}

function verdict(page: RequestPage): Line[] {
  const { kind, reason, rulings } = page.verdict;
  return [
    ...heading("Policy verdict"),
    line(`${kind.toUpperCase()}: ${reason}`, kind === "auto_rejected" ? "warn" : undefined),
    ...rulings.map((r) => line(`  ${r.op} at line ${r.line}: ${r.verdict} by ${r.rule === null ? "the policy default or an approval floor" : `rule ${r.rule}`} — ${r.why}`)),
  ];
}

function facts(page: RequestPage): Line[] {
  const items = page.facts.map((f) =>
    line(`  ${FACT_STATUS_LABELS[f.status].padEnd(MARK_WIDTH)} ${f.text} — ${f.why}${f.line === null ? "" : ` (line ${f.line})`}`, f.status === "proven" || f.status === "enforced" ? undefined : "warn"),
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
    lines.push(line(`  ${c.op} at line ${c.line}, ${c.count} call${c.count === "1" ? "" : "s"}`));
    for (const a of c.args) {
      lines.push(line(`      ${a.name} ${a.value}`));
      if (a.sources !== null) lines.push(line(`        comes from ${a.sources.text}`, a.sources.untrusted ? "warn" : undefined));
    }
    if (c.influence !== null) lines.push(line(`      steered by data: ${c.influence.text}`, c.influence.untrusted ? "warn" : undefined));
  }
  return lines;
}

function previews(page: RequestPage): Line[] {
  const shown = page.previews ?? [];
  return [...heading("Preview (fetched from the provider for this showing)"), ...(shown.length === 0 ? [line("  No preview for this request.", "dim")] : shown.flatMap(preview))];
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

/** One call's preview: its fields, multiline ones as an indented block under a gutter; or why there is none, as given. */
function preview(p: PagePreview): Line[] {
  const title = `  ${p.op}${p.line === null ? "" : ` at line ${p.line}`}:`;
  if ("unavailable" in p) return [line(`${title} ${p.unavailable}`, "warn")];
  const lines = [line(title)];
  if (p.op.startsWith(`${AGENT_CONNECTOR}.`)) lines.push(line("      (an action the agent defined: the labels are its words, the values the provider's)", "dim"));
  for (const f of p.fields) {
    if (!f.multiline) lines.push(line(`      ${f.label}: ${f.value}`));
    else lines.push(line(`      ${f.label}:`), ...splitLines(f.value.replace(/\n$/, "")).map((text): Line => ({ gutter: BLOCK_GUTTER, text })));
  }
  return lines;
}

/** Text the agent wrote, each line under the agent's gutter. */
const words = (text: string): Line[] => splitLines(text).map((l) => ({ gutter: AGENT_GUTTER, text: l, style: "agent" }));

/** The action manifests the agent submitted: each step and what each call resolves it to as facts, the descriptions as the agent's words. */
function agentManifests(page: RequestPage): Line[] {
  const kept = page.agent_manifests;
  if (kept === null) return [];
  const lines = heading(`Actions the agent defined (manifests sha256 ${kept.sha256}, bound into the receipt: a run executes exactly these)`);
  if ("unavailable" in kept) return [...lines, line(`  ${kept.unavailable}`, "warn")];
  for (const a of kept.actions) {
    lines.push(line(`  ${a.op}${a.approval_required ? " · approval required" : ""}${a.idempotent ? " · idempotent" : ""}`));
    for (const s of a.steps) {
      lines.push(line(`    step ${s.id}: ${s.op}, built as`), ...s.inputs.map((i) => line(`        ${i.name} ${i.value}`)));
      for (const c of s.calls) lines.push(line(`      at line ${c.line}, ${c.count} call${c.count === "1" ? "" : "s"}, with`), ...c.args.map((arg) => line(`        ${arg.name} ${arg.value}`)));
    }
    lines.push(line(`    The agent's description of ${a.op} (not verified):`, "dim"), ...words(a.description));
    for (const i of a.inputs) lines.push(line(`    input ${i.name} (${i.type}${i.required ? "" : ", optional"}):`, "dim"), ...words(i.description));
  }
  return lines;
}

function agentWords(page: RequestPage): Line[] {
  const { program, submitter } = page.rationale;
  return [
    ...heading("The agent's words (not verified: what it says, not what the program does)"),
    ...(program.trim() === "" ? [line("  (no rationale)", "dim")] : words(program)),
    ...(submitter === null || submitter.trim() === "" ? [] : [line("  Sent with the request:", "dim"), ...words(submitter)]),
  ];
}

function source(page: RequestPage, show: boolean): Line[] {
  const { lines: text, call_lines } = page.source;
  const title = `Source: ${page.entry}, ${text.length} lines, sha256 ${page.program_sha256}`;
  if (!show) return heading(`${title} (v: show)`);
  const calls = new Set(call_lines);
  const width = String(text.length).length;
  return [
    ...heading(`${title} (v: hide; ▶ marks a trusted call)`),
    ...text.map((l, i): Line => ({ gutter: `${calls.has(i + 1) ? "▶" : " "}${String(i + 1).padStart(width)} │ `, text: l, ...(calls.has(i + 1) ? { style: "mark" as const } : {}) })),
  ];
}

const splitLines = (text: string): string[] => text.split(/\r\n|\n|\r/);

// A blank line above each section: sections stay apart when the screen wraps them.
const heading = (text: string): Line[] => [line(""), line(`── ${text}`, "heading")];

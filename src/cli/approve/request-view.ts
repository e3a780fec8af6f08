import { describeArgument, describeCount, describeEffectConstraint } from "../../constraint/index.js";
import type { AbstractValue, Effect, GuaranteeResult } from "../../model/index.js";
import type { ApproverRequest } from "./approver-view.js";
import { duration, line, type Line } from "./lines.js";

// One request as the approver reads it, in the order of the browser's request page (DESIGN.md
// section 9): the verdict and its rule, the verified facts, the trusted calls with their
// arguments, the preview, the agent's own words set apart, the source. Facts come from the
// authority's analysis only; the agent's text appears in its own labelled section and nowhere
// else. Pure: the screen neutralises and wraps what this returns.

export interface ViewOptions {
  now: number; // ms since the epoch
  showSource: boolean;
}

const GUARANTEE_MARK: Record<GuaranteeResult["status"], string> = {
  proven: "proven",
  enforced: "enforced at run time",
  refuted: "not proven (the program breaks it)",
};

const MARK_WIDTH = 22;

export function requestLines(r: ApproverRequest, options: ViewOptions): Line[] {
  return [
    ...header(r, options.now),
    ...verdict(r),
    ...facts(r),
    ...calls(r),
    ...preview(),
    ...agentWords(r),
    ...source(r, options.showSource),
  ];
}

function header(r: ApproverRequest, now: number): Line[] {
  const created = Date.parse(r.created_at);
  const deadline = Date.parse(r.deadline_at);
  const when = r.status === "pending" ? `expires in ${duration(deadline - now)}` : r.status;
  const lines = [line(`Request ${r.id} from agent ${r.token} · submitted ${duration(now - created)} ago · ${when}`, "title")];
  const d = r.decision;
  if (d !== null) {
    const who = d.approver === null ? "by the policy" : `by ${d.approver}`;
    lines.push(line(`Decided: ${d.kind} ${who} at ${d.at}`, d.kind.includes("approved") ? "ok" : "warn"));
    if (d.reason !== null) lines.push(line(`  reason: ${d.reason}`));
    if (d.feedback !== null) lines.push(line(`  feedback to the agent: ${d.feedback}`));
  }
  return lines;
}

function verdict(r: ApproverRequest): Line[] {
  const lines = [...heading("Policy verdict"), line(`${r.policy.kind.toUpperCase()}: ${r.policy.reason}`, r.policy.kind === "auto_rejected" ? "warn" : undefined)];
  for (const e of r.policy.effects) {
    lines.push(line(`  ${e.op} at line ${e.site.line}: ${e.verdict} by ${e.rule === null ? "the policy default or an approval floor" : `rule ${e.rule}`} — ${e.why}`));
  }
  for (const g of r.policy.guards) lines.push(line(`  checked at every call: ${describeEffectConstraint(g)}`));
  return lines;
}

function facts(r: ApproverRequest): Line[] {
  const items: Line[] = [];
  for (const g of r.facts.guarantees) {
    const at = g.site === undefined ? "" : ` (line ${g.site.line})`;
    items.push(line(`  ${GUARANTEE_MARK[g.status].padEnd(MARK_WIDTH)} ${g.text} — ${g.why}${at}`, g.status === "refuted" ? "warn" : undefined));
  }
  for (const e of r.facts.effects) {
    for (const [name, value] of Object.entries(e.args)) {
      if (!isKnown(value)) items.push(line(`  ${"unknown".padEnd(MARK_WIDTH)} \`${name}\` of ${e.op} at line ${e.site.line} ${describeArgument(value)}`, "warn"));
    }
    if (e.count.max === null) items.push(line(`  ${"unknown".padEnd(MARK_WIDTH)} how many times ${e.op} at line ${e.site.line} runs (${describeCount(e.count)})`, "warn"));
  }
  for (const d of r.facts.diagnostics) items.push(line(`  ${d.severity.padEnd(MARK_WIDTH)} line ${d.line}:${d.column} ${d.code}: ${d.message}`, "warn"));
  return [...heading("Verified facts"), ...(items.length > 0 ? items : [line("  (the program promises nothing and every argument is known)", "dim")])];
}

/** A value the analysis pinned down: constants, or arrays and records made only of them. */
function isKnown(v: AbstractValue): boolean {
  if (v.kind === "const") return true;
  if (v.kind === "array") return isKnown(v.element);
  if (v.kind === "record") return Object.values(v.fields).every(isKnown);
  return false;
}

function calls(r: ApproverRequest): Line[] {
  const lines = [...heading("Trusted calls the program can make")];
  if (r.facts.effects.length === 0) lines.push(line("  none", "dim"));
  for (const e of r.facts.effects) lines.push(...call(e));
  return lines;
}

function call(e: Effect): Line[] {
  return [
    line(`  ${e.op} at line ${e.site.line}, ${times(e)}`),
    ...Object.entries(e.args).map(([name, value]) => line(`      ${name} ${describeArgument(value)}`)),
  ];
}

function times(e: Effect): string {
  const { min, max } = e.count;
  if (max === null) return `${min} or more times`;
  if (min === max) return min === 1 ? "once" : `${min} times`;
  return `${min} to ${max} times`;
}

// The authority fetches no preview yet: said plainly, as the browser page does for a missing one.
function preview(): Line[] {
  return [...heading("Preview"), line("  n/a: the authority sent no preview for this request", "dim")];
}

function agentWords(r: ApproverRequest): Line[] {
  const lines = [...heading("The agent's words (not verified: what it says, not what the program does)")];
  const said = [r.facts.rationale, r.rationale ?? ""].filter((t) => t.trim() !== "");
  if (said.length === 0) lines.push(line("  (the agent gave no rationale)", "dim"));
  for (const text of said) for (const l of text.split(/\r\n|\n|\r/)) lines.push({ gutter: "  │ ", text: l, style: "agent" });
  return lines;
}

function source(r: ApproverRequest, show: boolean): Line[] {
  // Lines as the analysis numbers them (TypeScript's line terminators, LS and PS included), so that
  // a call's line in the facts is the line marked here, whatever separators the agent slipped in.
  const text = r.source.split(/\r\n|[\n\r\u2028\u2029]/);
  if (text.at(-1) === "") text.pop();
  const title = `Source: ${r.facts.program.entry}, ${text.length} lines, sha256 ${r.facts.program.sha256}`;
  if (!show) return heading(`${title} (v: show)`);
  const callLines = new Set(r.facts.effects.map((e) => e.site.line));
  const width = String(text.length).length;
  return [
    ...heading(`${title} (v: hide; ▶ marks a trusted call)`),
    ...text.map((l, i): Line => ({ gutter: `${callLines.has(i + 1) ? "▶" : " "}${String(i + 1).padStart(width)} │ `, text: l, ...(callLines.has(i + 1) ? { style: "mark" as const } : {}) })),
  ];
}

// A blank line above each section: sections stay apart when the screen wraps them.
const heading = (text: string): Line[] => [line(""), line(`── ${text}`, "heading")];

import { decidedBy } from "../../app/index.js";
import type { ApproverRequest } from "./approver-view.js";
import { duration, line, type Line, DECISION_WORDS } from "./lines.js";
import { agentNamed } from "./request-view.js";

/** Which requests the list shows: those waiting for a decision, or those that no longer wait. */
export type ListMode = "pending" | "history";

/** The rows one request takes in the list. */
export const ROWS_PER_REQUEST = 3;

/**
 * The requests, newest first, three rows each as in the browser's inbox. The first row is what
 * the program will do (the headline, from the facts, never the agent's prose). The second, for a
 * pending request, its risks by label, danger first and said in words; for a past one, its
 * decision, who made it (a person, the policy or a remembered rule) and when. The third, the
 * program's name (the agent chose it: marked as such), the agent, and for a pending request its
 * age and the time left. `selected` is the cursor's request. The screen cuts each row to the width.
 */
export function listLines(
  requests: readonly ApproverRequest[],
  selected: number,
  now: number,
  mode: ListMode = "pending",
): Line[] {
  if (requests.length === 0) {
    return [
      line(
        mode === "pending"
          ? "  No pending requests. New ones appear here as they arrive."
          : "  No past requests yet: decided and expired ones appear here.",
        "dim",
      ),
    ];
  }
  return requests.flatMap((r, i) => {
    const chosen = i === selected;
    const headline = r.headline ?? r.facts.summary[0]?.split(/\r\n|\n|\r/)[0] ?? r.policy.reason;
    const danger = r.risks.some((risk) => risk.level === "danger");
    const about = [agentNamed(r.facts.program.entry), `from ${r.token}`];
    const [second, third] =
      mode === "pending"
        ? [
            riskMarkers(r),
            [
              ...about,
              `${duration(now - Date.parse(r.created_at))} old, ${duration(Date.parse(r.deadline_at) - now)} left`,
            ].join(" · "),
          ]
        : [outcome(r, now), [...about, ...(r.risks.length === 0 ? [] : [riskMarkers(r)])].join(" · ")];
    const style = (own: Line["style"]) => (chosen ? "selected" : own);
    return [
      line(`${chosen ? ">" : " "} ${headline}`, style(undefined)),
      line(`    ${second}`, style(mode === "pending" && danger ? "warn" : undefined)),
      line(`    ${third}`, style("dim")),
    ];
  });
}

/** A request's risks by label, the dangers first: "DANGER: untrusted values; warning: mail to others". */
export function riskMarkers(r: Pick<ApproverRequest, "risks">): string {
  const labels = (level: string) => r.risks.filter((risk) => risk.level === level).map((risk) => risk.label);
  const danger = labels("danger");
  const warning = labels("warning");
  const parts = [
    ...(danger.length === 0 ? [] : [`DANGER: ${danger.join(", ")}`]),
    ...(warning.length === 0 ? [] : [`warning: ${warning.join(", ")}`]),
  ];
  return parts.length === 0 ? "no risk flagged" : parts.join("; ");
}

/** What became of a past request, who decided it and when: "approved by a remembered rule, 3 min ago". */
export function outcome(r: ApproverRequest, now: number): string {
  const d = r.decision;
  if (d === null) return `${r.status}, ${duration(now - Date.parse(r.deadline_at))} ago`;
  const by = decidedBy({ decision: { ...d, at: Date.parse(d.at) }, policy: r.policy });
  const who =
    by === "person" ? (d.approver ?? "a person") : by === "remembered_rule" ? "a remembered rule" : "the policy";
  return `${DECISION_WORDS[d.kind] ?? d.kind} by ${who}, ${duration(now - Date.parse(d.at))} ago`;
}

import type { ApproverRequest } from "./approver-view.js";
import { duration, line, type Line } from "./lines.js";

/**
 * The pending requests, newest first, one row each as in the browser's inbox: the verdict, the
 * first line of the summary (facts, never the agent's prose), the agent, the age and the time
 * left before it expires. `selected` is the cursor's row.
 */
export function listLines(requests: readonly ApproverRequest[], selected: number, now: number): Line[] {
  if (requests.length === 0) return [line("  No pending requests. New ones appear here as they arrive.", "dim")];
  return requests.map((r, i) => {
    const summary = r.facts.summary[0] ?? r.policy.reason;
    const times = `${duration(now - Date.parse(r.created_at))} old, expires in ${duration(Date.parse(r.deadline_at) - now)}`;
    return line(`${i === selected ? ">" : " "} ${r.policy.kind.padEnd(13)} ${r.token.padEnd(12)} ${times.padEnd(30)} ${summary.split(/\r\n|\n|\r/)[0]}`, i === selected ? "selected" : undefined);
  });
}

// How often a person is asked: every task of bench/hitl decided with the shipped policy, benign
// tasks and injection cases apart, next to the ask rate CaMeL publishes for AgentDojo.
import { table, writeSection } from "./report.js";
import { CAMEL_ASK_RATE, decideTasks, type TaskOutcome } from "./hitl-tasks.js";

// The shipped policy before it allowed drafts, mail provably to oneself and bounded sandbox writes,
// on this task set (decided once with that policy's text; it is no longer in the tree to rerun).
const BEFORE = { asked: 19, benign: 27 };

const outcomes = decideTasks();
const refused = outcomes.filter((t) => t.facts.diagnostics.some((d) => d.severity === "error"));
if (refused.length > 0) throw new Error(`the analysis refuses ${refused.map((t) => t.name).join(", ")}`);
const benign = outcomes.filter((t) => !t.injection);
const injections = outcomes.filter((t) => t.injection);
const count = (tasks: TaskOutcome[], kind: string) => tasks.filter((t) => t.decision.kind === kind).length;
const percent = (n: number, of: number) => `${((100 * n) / of).toFixed(1)}%`;
const passed = injections.filter((t) => t.decision.kind === "auto_approved");

const rows = [
  ["tasks", "count", "auto-pass", "ask", "denied"],
  [
    "benign",
    String(benign.length),
    String(count(benign, "auto_approved")),
    String(count(benign, "ask")),
    String(count(benign, "auto_rejected")),
  ],
  [
    "injection",
    String(injections.length),
    String(count(injections, "auto_approved")),
    String(count(injections, "ask")),
    String(count(injections, "auto_rejected")),
  ],
];
const asked = count(benign, "ask");
const body = `${table(rows)}

${table([
  ["benign tasks a person is asked about", "ask rate"],
  ["countersign, shipped policy", `${asked} of ${benign.length}: ${percent(asked, benign.length)}`],
  [
    "countersign, shipped policy before drafts, own address and sandbox writes",
    `${BEFORE.asked} of ${BEFORE.benign}: ${percent(BEFORE.asked, BEFORE.benign)}`,
  ],
  ["CaMeL on AgentDojo (published)", `${CAMEL_ASK_RATE}%`],
])}

CaMeL's figure is over another task set (AgentDojo's suites, not bench/hitl), so the comparison is
indicative only. Injection cases that run without a person: ${passed.length === 0 ? "none (every one asks or is denied)" : passed.map((t) => t.name).join(", ")}.

${table([["task", "decision"], ...outcomes.map((t) => [`${t.injection ? "injection" : "benign"}: ${t.name}`, t.decision.kind])])}`;

process.stdout.write(`${body}\n`);
writeSection("hitl", "How often a person is asked", body);
if (passed.length > 0) process.exit(1);

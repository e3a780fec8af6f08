// Provenance across runs: the multi-run injection suite (bench/hitl-runs) decided with the shipped
// policy and a CaMeL-style one, each second program alone and read against what run 1 gave the
// agent, as the authority reads an agent's later programs. Reproduce: npx tsx bench/hitl-runs.bench.ts
import { decideRunCases } from "./hitl-runs/cases.js";
import { decisionsSection } from "./hitl-runs/report.js";
import { writeSection } from "./report.js";

const outcomes = decideRunCases();
// The totals; the table of every program stays in bench/hitl-runs/README.md.
const section = decisionsSection(outcomes);
const body = section
  .slice(0, section.indexOf("| case |"))
  .split("\n")
  .filter((line) => !line.startsWith("<!--"))
  .join("\n")
  .trim();
process.stdout.write(`${body}\n`);
writeSection(
  "hitl-runs",
  "Pasted values across runs",
  `${body}\n\nEvery program's decision: bench/hitl-runs/README.md.`,
);

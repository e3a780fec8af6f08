// The analysis budget: how long `countersign check` takes on programs written to be slow, next to
// the budget, and the same check on the 50-line program of the analyzer benchmark as the baseline.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createAnalyzer, DEFAULT_BUDGET } from "../src/analyze/index.js";
import { packageRoot } from "../src/model/paths.js";
import { slowPrograms } from "../test/analyze/support/slow-programs.js";
import { testManifests } from "../test/analyze/support/test-manifests.js";
import { PROGRAM } from "./fifty-line-program.js";
import { table, writeSection } from "./report.js";

const dir = mkdtempSync(join(tmpdir(), "countersign-budget-"));
const home = join(dir, "home"); // one data directory, so that every check but the first reads the code cache
const ROUNDS = 5;

/** One `countersign check --json` process: its wall time and what it said. */
function check(file: string): { ms: number; outcome: string } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [join(packageRoot, "bin/countersign.js"), "check", file, "--json"], {
    encoding: "utf8",
    env: { ...process.env, COUNTERSIGN_HOME: home },
    maxBuffer: 64 << 20,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const facts = JSON.parse(r.stdout) as {
    ok: boolean;
    diagnostics: { code: string; construct?: string }[];
    effects: { count: { max: number | null } }[];
  };
  const first = facts.diagnostics[0];
  const outcome =
    first === undefined
      ? `ok${facts.effects.some((e) => e.count.max === null) ? ", counts unbounded" : ""}`
      : `${first.code}${first.construct === undefined ? "" : ` (${first.construct})`}`;
  return { ms, outcome };
}

const baselineFile = join(dir, "baseline.ts");
writeFileSync(baselineFile, PROGRAM);

const files = Object.entries(slowPrograms).map(([name, source], i) => {
  const file = join(dir, `slow-${i}.ts`);
  writeFileSync(file, source);
  return { name, file, bytes: Buffer.byteLength(source) };
});

check(baselineFile); // writes the code cache
const times = new Map<string, number[]>();
const outcomes = new Map<string, string>();
for (let round = 0; round < ROUNDS; round++) {
  for (const { name, file } of [{ name: "baseline", file: baselineFile }, ...files]) {
    const { ms, outcome } = check(file);
    times.set(name, [...(times.get(name) ?? []), ms]);
    outcomes.set(name, outcome);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const worst = (xs: number[]): number => Math.max(...xs);

// The analysis alone, in process (no process start, no TypeScript load, no policy): what the budget bounds.
const analyzer = createAnalyzer(testManifests());
const inProcess = new Map<string, number>();
for (const { name, file } of files) {
  const source = readFileSync(file);
  let most = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = process.hrtime.bigint();
    analyzer.analyze(source);
    most = Math.max(most, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  inProcess.set(name, most);
}
analyzer.dispose();

const ms = (n: number): string => `${n.toFixed(0)} ms`;
const base = median(times.get("baseline")!);
const rows = files.map(({ name, bytes }) => {
  const t = times.get(name)!;
  return [
    name,
    `${(bytes / 1024).toFixed(1)} KiB`,
    outcomes.get(name)!,
    ms(inProcess.get(name)!),
    ms(median(t)),
    ms(worst(t)),
    (worst(t) / base).toFixed(1) + "×",
  ];
});
const slowest = Math.max(...files.map(({ name }) => worst(times.get(name)!)));
const slowestAnalysis = Math.max(...inProcess.values());
const body = `Each program was written to make the analysis slow (before the budget, four nested 60-iteration
loops took minutes, a helper call tree of depth 12 took 8 minutes, type-level recursion ran for
seconds inside the checker). Budget: ${DEFAULT_BUDGET.ms} ms wall clock (the type check included), ${DEFAULT_BUDGET.steps} interpreter
steps, ${DEFAULT_BUDGET.bytes / 1024} KiB. Whole \`countersign check --json\` processes with the code cache in place, ${ROUNDS} interleaved
rounds; "analysis" is the slowest of 3 in-process analyses (what the budget bounds; the process adds
the TypeScript load and the policy). Baseline: \`check\` on the 50-line program of the analyzer
benchmark, median ${ms(base)}. Worst \`check\`: ${ms(slowest)}; worst analysis: ${ms(slowestAnalysis)} against the budget of
${DEFAULT_BUDGET.ms} ms. The machine is shared: 1-minute load average ${loadavg()[0]!.toFixed(1)} when the run ended.

${table([["program", "size", "result", "analysis (worst)", "check (median)", "check (worst)", "worst vs baseline"], ...rows])}
`;
writeSection("budget", "Analysis budget: slow programs", body);
process.stdout.write(body);

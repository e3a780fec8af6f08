// The analyzer: a cold `countersign check` process next to `tsc --noEmit` (TypeScript 5 and the
// native TypeScript 7) on the same 50-line program, and warm per-program analysis in one process.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createAnalyzer } from "../src/analyze/index.js";
import { generateApi } from "../src/manifest/generate-api.js";
import { loadManifests } from "../src/config/index.js";
import { packageRoot } from "../src/model/paths.js";
import { PROGRAM } from "./fifty-line-program.js";
import { measure, table, writeSection } from "./report.js";

const dir = mkdtempSync(join(tmpdir(), "countersign-bench-"));
const file = join(dir, "program.ts");
writeFileSync(file, PROGRAM);
const set = loadManifests(join(packageRoot, "manifests"));
writeFileSync(join(dir, "api.d.ts"), generateApi(set).all);

const run = (args: string[], env: NodeJS.ProcessEnv = process.env): void => {
  const r = spawnSync(process.execPath, args, { cwd: dir, encoding: "utf8", env });
  if (r.status !== 0) throw new Error(`${args.join(" ")} failed (${r.status}): ${r.stdout}${r.stderr}`);
};
// \`check\` keeps its code cache in the data directory: a fresh one per run is the first run after
// install; one kept across runs is every run after that.
let fresh = 0;
const home = (): string => join(dir, `home-${fresh++}`);
const warmHome = home();
const check = (countersignHome: string) => (): void =>
  run([join(packageRoot, "bin/countersign.js"), "check", file, "--json"], {
    ...process.env,
    COUNTERSIGN_HOME: countersignHome,
  });
const tscArgs = [
  "--noEmit",
  "--strict",
  "--target",
  "es2022",
  "--module",
  "esnext",
  "--moduleResolution",
  "bundler",
  "--skipLibCheck",
  "program.ts",
  "api.d.ts",
];
const tsc5 = (): void => run([join(packageRoot, "node_modules/typescript5/bin/tsc"), ...tscArgs]);
const tsc7 = (): void => run([join(packageRoot, "node_modules/typescript/bin/tsc"), ...tscArgs]);

/** Median ms of each process, run in interleaved rounds so that load from other jobs hits all alike. */
function rounds(procs: Record<string, () => void>, n: number): Record<string, number> {
  const times: Record<string, number[]> = {};
  for (let i = 0; i < n; i++) {
    for (const [name, fn] of Object.entries(procs)) {
      const t0 = process.hrtime.bigint();
      fn();
      (times[name] ??= []).push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  return Object.fromEntries(
    Object.entries(times).map(([name, t]) => [name, t.sort((a, b) => a - b)[Math.floor(t.length / 2)]!]),
  );
}

const lines = PROGRAM.trimEnd().split("\n").length;
check(warmHome)(); // writes the code cache
const cold = rounds(
  { first: () => check(home())(), cached: check(warmHome), tsc5, tsc7, node: () => run(["-e", "0"]) },
  15,
);

let analyzer = createAnalyzer(set);
const firstInProcess = await measure(
  () => {
    analyzer.dispose();
    analyzer = createAnalyzer(set);
    analyzer.analyze(PROGRAM);
  },
  { samples: 5 },
);
for (let i = 0; i < 20; i++) analyzer.analyze(PROGRAM); // a long-lived analyzer runs JIT-compiled code
const warm = await measure(() => analyzer.analyze(PROGRAM), { samples: 100 });
const facts = analyzer.analyze(PROGRAM);
if (!facts.ok) throw new Error(`the bench program must be well-formed: ${JSON.stringify(facts.diagnostics)}`);

// What the authority pays for each new program: the process's CPU time (V8's GC threads
// included) per analysis of examples/read-notes.ts, a different comment each time.
const readNotes = readFileSync(join(packageRoot, "examples", "read-notes.ts"), "utf8");
let serial = 0;
const cpuPerProgram = (source: string): number => {
  for (let i = 0; i < 30; i++) analyzer.analyze(`${source}// warm-up ${++serial}\n`);
  const samples: number[] = [];
  for (let s = 0; s < 9; s++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < 30; i++) analyzer.analyze(`${source}// program ${++serial}\n`);
    const c = process.cpuUsage(c0);
    samples.push((c.user + c.system) / 1000 / 30);
  }
  return samples.sort((a, b) => a - b)[4]!;
};
const distinctReadNotes = cpuPerProgram(readNotes);
const distinctFifty = cpuPerProgram(PROGRAM);
analyzer.dispose();

const ms = (n: number): string => `${n.toFixed(1)} ms`;
const vsTsc5 = (n: number, target = ""): string[] => [
  ms(n),
  (n / cold.tsc5!).toFixed(2),
  `tsc 5 --noEmit ${ms(cold.tsc5!)}${target}`,
];
const body = `A ${lines}-line program with helpers, loops, a filter/map chain and calls to all three connectors
(${facts.effects.length} effect sites, ${facts.guarantees.length} guarantees). Whole processes, median of 15 interleaved rounds; \`tsc\` gets
the generated API declarations and the same strictness. \`check\` loads the TypeScript compiler that
the exact-pinned \`typescript6\` dependency provides (TypeScript 6.0, 9 MB of JavaScript) and keeps V8's compiled code for it in \`$COUNTERSIGN_HOME/cache\`:
the first run after install compiles it from source, every later run reads the cache. The machine
is shared: 1-minute load average ${loadavg()[0]!.toFixed(1)} when the run ended.

${table([
  ["measure", "time", "ratio to baseline", "baseline"],
  ["cold `countersign check --json`, code cache in place (process)", ...vsTsc5(cold.cached!, " (target ≤ 0.50)")],
  [
    "cold `countersign check --json`, first run: no code cache yet (process)",
    ...vsTsc5(cold.first!, " (target ≤ 0.50)"),
  ],
  ["cold `tsc --noEmit`, TypeScript 7 (native)", ...vsTsc5(cold.tsc7!)],
  [
    "`node -e 0` (process floor)",
    ms(cold.node!),
    (cold.node! / cold.cached!).toFixed(2),
    `cold check, cached ${ms(cold.cached!)}`,
  ],
  [
    "warm analysis, same analyzer after 20 analyses (in process)",
    ms(warm),
    (warm / firstInProcess).toFixed(2),
    `new analyzer + first analysis ${ms(firstInProcess)} (target warm < 20 ms)`,
  ],
  [
    "CPU per new program, examples/read-notes.ts (in process)",
    ms(distinctReadNotes),
    (distinctReadNotes / firstInProcess).toFixed(2),
    `new analyzer + first analysis ${ms(firstInProcess)} (target ≤ 8 ms)`,
  ],
  [
    `CPU per new program, the ${lines}-line program (in process)`,
    ms(distinctFifty),
    (distinctFifty / firstInProcess).toFixed(2),
    `new analyzer + first analysis ${ms(firstInProcess)}`,
  ],
])}

"CPU per new program" is the process's CPU time (V8's garbage collector threads included) per
analysis when every program is new (a different comment each time), median of 9 runs of 30: what
an authority's analysis thread spends on each distinct submission. Programs that are modules
importing only the API share one long-lived type checker, which keeps the lib's and the API's
resolved types between programs (src/analyze/compile/compile.ts); a program with a type error is checked
again in a checker of its own, so that its messages never depend on the programs before it.
`;
writeSection("analyze", "Analyzer: cold check and warm analysis", body);
process.stdout.write(body);

import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { cpus } from "node:os";
import { packageRoot } from "../src/model/paths.js";

const FILE = join(packageRoot, "BENCHMARKS.md");
const HEADER = `# Benchmarks

Produced by \`npm run bench\` (each section by its own script under bench/; rerun one with
\`npx tsx bench/<name>.bench.ts\`). Every figure stands next to a baseline measured in the same run.
`;

/** Replace (or append) one named section of BENCHMARKS.md, leaving the others as they are. */
export function writeSection(name: string, title: string, body: string): void {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const machine = `${cpus().length} cores, ${cpus()[0]?.model ?? "unknown cpu"}, Node ${process.version}`;
  const section = `${start}\n## ${title}\n\nMeasured ${new Date().toISOString().slice(0, 10)} on ${machine}. Reproduce: \`npx tsx bench/${name}.bench.ts\`.\n\n${body.trim()}\n${end}`;
  const current = existsSync(FILE) ? readFileSync(FILE, "utf8") : HEADER;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from >= 0 && to > from
      ? current.slice(0, from) + section + current.slice(to + end.length)
      : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(FILE, next);
}

/** Median of repeated timings in ms; each sample runs `fn` `inner` times. */
export async function measure(fn: () => unknown | Promise<unknown>, { samples = 15, inner = 1 } = {}): Promise<number> {
  const times: number[] = [];
  for (let s = 0; s < samples; s++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < inner; i++) await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6 / inner);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export function table(rows: string[][]): string {
  const [head, ...rest] = rows;
  if (head === undefined) return "";
  const line = (r: string[]) => `| ${r.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rest.map(line)].join("\n");
}

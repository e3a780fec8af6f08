// The summary table that opens BENCHMARKS.md: each headline figure next to its baseline from the
// same run, the target, and whether it was met. It reads the figures from the sections the
// benchmarks wrote (their tables), so that no benchmark needs to know about it; a figure whose row
// is gone shows as missing rather than as a stale number.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { packageRoot } from "../src/model/paths.js";
import { table } from "./report.js";

/** A cell of a section's table: the first row whose first cell contains `row`, column `column` (0-based). */
export interface Cell {
  section: string;
  row: string;
  column: number;
}

export interface Headline {
  what: string;
  figure: Cell;
  baseline: Cell & { label: string };
  /** The target as written, and how the figure (or its ratio to the baseline) is checked. */
  target?: { text: string; check: (figure: number, baseline: number) => boolean };
}

const ms = (section: string, row: string, column = 1): Cell => ({ section, row, column });

export const HEADLINES: Headline[] = [
  {
    what: "cold `countersign check` (code cache in place)",
    figure: ms("analyze", "cold `countersign check --json`, code cache in place"),
    baseline: { section: "analyze", row: "cold `countersign check --json`, code cache in place", column: 3, label: "" },
    target: { text: "≤ 0.50 × tsc 5", check: (f, b) => f <= 0.5 * b },
  },
  {
    what: "cold `tsc --noEmit`, TypeScript 7 (native), for scale",
    figure: ms("analyze", "cold `tsc --noEmit`, TypeScript 7"),
    baseline: { section: "analyze", row: "cold `countersign check --json`, code cache in place", column: 3, label: "" },
  },
  {
    what: "warm analysis of a 50-line program",
    figure: ms("analyze", "warm analysis, same analyzer"),
    baseline: { section: "analyze", row: "warm analysis, same analyzer", column: 3, label: "" },
    target: { text: "< 20 ms", check: (f) => f < 20 },
  },
  {
    what: "`countersign check` through a running authority",
    figure: ms("authority", "`countersign check --json` through a running authority"),
    baseline: { section: "authority", row: "`countersign check --json` through a running authority", column: 3, label: "" },
    target: { text: "≤ 1.00 × tsc 7", check: (f, b) => f <= b },
  },
  {
    what: "policy decide(), 20 effects × 50 rules",
    figure: ms("policy", "countersign decide(): three-valued"),
    baseline: { section: "policy", row: "baseline: Cedar", column: 1, label: "Cedar" },
    target: { text: "≤ 0.10 × Cedar", check: (f, b) => f <= 0.1 * b },
  },
  {
    what: "verifyReceipt, all checks",
    figure: ms("receipt", "verifyReceipt (all checks"),
    baseline: { section: "receipt", row: "baseline: raw Ed25519 verify", column: 1, label: "node:crypto verify" },
    target: { text: "≤ 2 × node:crypto", check: (f, b) => f <= 2 * b },
  },
  {
    what: "checkCall, 5-grant receipt",
    figure: ms("receipt", "checkCall, 5-grant receipt"),
    baseline: { section: "receipt", row: "baseline: the bare satisfies()", column: 1, label: "bare satisfies()" },
    target: { text: "< 5 µs", check: (f) => f < 0.005 },
  },
  ...(["SQLite", "PostgreSQL"] as const).flatMap((db): Headline[] => [
    {
      what: `authority, ${db}: auto-approved, distinct programs (requests/s)`,
      figure: ms("authority", `${db}: auto-approved, distinct programs`),
      baseline: { section: "authority", row: "baseline: bare hono", column: 1, label: "bare hono" },
      target: { text: "≥ 150/s", check: (f) => f >= 150 },
    },
    {
      what: `authority, ${db}: auto-approved, one program repeated (requests/s)`,
      figure: ms("authority", `${db}: auto-approved, one program repeated`),
      baseline: { section: "authority", row: "baseline: bare hono", column: 1, label: "bare hono" },
      target: { text: "≥ 2,000/s", check: (f) => f >= 2000 },
    },
  ]),
  {
    what: "sandbox overhead per run (20 trusted calls)",
    figure: ms("sandbox", "sandbox overhead per run"),
    baseline: { section: "sandbox", row: "baseline: 20 × callWithReceipt", column: 1, label: "the 20 calls from the host" },
    target: { text: "< 10 ms", check: (f) => f < 10 },
  },
  {
    what: "one trusted call from the sandbox",
    figure: ms("sandbox", "per trusted call in the sandbox"),
    baseline: { section: "sandbox", row: "the same call made directly", column: 1, label: "a direct connector call" },
    target: { text: "< 0.5 ms", check: (f) => f < 0.5 },
  },
  {
    what: "executeAction fs.list_dir through the plugin pool",
    figure: ms("sandbox-plugin-call", "executeAction fs.list_dir through the pool"),
    baseline: { section: "sandbox-plugin-call", row: "baseline: the fs_list host operation", column: 1, label: "the host operation called directly" },
  },
  {
    what: "store, SQLite: auto-approved submit with its receipt, one caller (requests/s)",
    figure: ms("store", "SQLite: auto-approved submit"),
    baseline: { section: "store", row: "SQLite baseline: bare INSERT", column: 1, label: "bare INSERT" },
  },
];

interface Section {
  title: string;
  measured: string; // "Measured <date> on <machine>."
  reproduce: string;
  rows: string[][];
}

/** The sections of BENCHMARKS.md by name, with their table rows split into cells. */
export function readSections(text: string): Map<string, Section> {
  const out = new Map<string, Section>();
  for (const m of text.matchAll(/<!-- bench:([a-z0-9-]+) -->\n([\s\S]*?)<!-- \/bench:\1 -->/g)) {
    const body = m[2]!;
    out.set(m[1]!, {
      title: /^## (.*)$/m.exec(body)?.[1] ?? m[1]!,
      measured: /Measured ([^.]*?\d{4}-\d\d-\d\d on [^.]*?(?:\.\d+)*[^.]*?)\. Reproduce/.exec(body)?.[1] ?? "",
      reproduce: /Reproduce: `([^`]+)`/.exec(body)?.[1] ?? "",
      rows: body
        .split("\n")
        .filter((l) => l.startsWith("|") && !/^\|\s*-/.test(l))
        .map((l) => l.slice(1, -1).split(" | ").map((c) => c.trim())),
    });
  }
  return out;
}

/** A figure as written (273.7 ms, 976 µs, 8,610, 1.51×), in milliseconds when it is a time. */
export function parseFigure(text: string): number | undefined {
  // the first number with a unit ("tsc 5 --noEmit 589.4 ms" is 589.4 ms), else a bare count ("8,610")
  const m = /(-?[0-9][0-9,]*(?:\.[0-9]+)?)\s*(ms|µs|us|s\b|\/s|×)/.exec(text) ?? /^(-?[0-9][0-9,]*(?:\.[0-9]+)?)()/.exec(text);
  if (m === null) return undefined;
  const value = Number(m[1]!.replace(/,/g, ""));
  return m[2] === "µs" || m[2] === "us" ? value / 1000 : m[2] === "s" ? value * 1000 : value;
}

function cell(sections: Map<string, Section>, ref: Cell): string | undefined {
  return sections.get(ref.section)?.rows.find((r) => r[0]!.includes(ref.row))?.[ref.column];
}

/** The summary table (markdown) and the sections it drew on. */
export function summarize(text: string): string {
  const sections = readSections(text);
  const rows = [["what", "figure", "baseline (same run)", "target", "met?", "section"]];
  for (const h of HEADLINES) {
    const figureText = cell(sections, h.figure);
    const baselineText = cell(sections, h.baseline);
    const figure = figureText === undefined ? undefined : parseFigure(figureText);
    const baseline = baselineText === undefined ? undefined : parseFigure(baselineText);
    const met = h.target === undefined || figure === undefined ? "" : baseline === undefined && h.target.check.length > 1 ? "?" : h.target.check(figure, baseline ?? NaN) ? "met" : "**not met**";
    const bare = baselineText?.replace(/\s*\(target[^)]*\)/, "");
    const shownBaseline = bare === undefined ? "missing" : h.baseline.label === "" ? bare : `${h.baseline.label} ${bare}`;
    rows.push([h.what, figureText ?? "missing", shownBaseline, h.target?.text ?? "", met, `[${h.figure.section}](#${anchor(sections.get(h.figure.section)?.title ?? h.figure.section)})`]);
  }
  const used = [...new Set(HEADLINES.flatMap((h) => [h.figure.section, h.baseline.section]))];
  const machines = [...new Set([...sections.values()].map((s) => s.measured.replace(/^\d{4}-\d\d-\d\d on /, "")).filter(Boolean))];
  const reproduce = used.filter((n) => sections.has(n)).map((n) => `- ${sections.get(n)!.title}: \`${sections.get(n)!.reproduce}\` (${sections.get(n)!.measured.split(" on ")[0]})`);
  return [
    "## Summary",
    "",
    table(rows),
    "",
    `Machine: ${machines.join("; ") || "unknown"}. Every figure and its baseline come from the same run of the same benchmark; the sections below say how each was measured. \`npm run bench\` reruns all of them and rewrites this file; \`npm run bench -- <name>\` one of them.`,
    "",
    "Reproduce:",
    "",
    ...reproduce,
  ].join("\n");
}

const anchor = (title: string): string => title.toLowerCase().replace(/[^a-z0-9 -]/g, "").replace(/ /g, "-");

/** Put the summary at the top of BENCHMARKS.md (after its header), replacing the previous one. */
export function writeSummary(file: string = join(packageRoot, "BENCHMARKS.md")): void {
  const text = readFileSync(file, "utf8");
  const start = "<!-- bench:summary -->";
  const end = "<!-- /bench:summary -->";
  const block = `${start}\n${summarize(text)}\n${end}`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  const first = text.indexOf("<!-- bench:");
  const next =
    from >= 0 && to > from
      ? text.slice(0, from) + block + text.slice(to + end.length)
      : first >= 0
        ? `${text.slice(0, first)}${block}\n\n${text.slice(first)}`
        : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, next);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeSummary();

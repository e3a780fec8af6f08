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

/**
 * One headline: `what`, the section, the figure's row, the baseline's row and column, its label
 * ("" when the cell names it), and the target.
 */
const headline = (
  what: string,
  section: string,
  row: string,
  baseline: [row: string, column: number, label: string],
  target?: Headline["target"],
): Headline => ({
  what,
  figure: { section, row, column: 1 },
  baseline: { section, row: baseline[0], column: baseline[1], label: baseline[2] },
  ...(target === undefined ? {} : { target }),
});
const COLD_CHECK = "cold `countersign check --json`, code cache in place";
const BARE_HONO: [string, number, string] = ["baseline: bare hono", 1, "bare hono"];

export const HEADLINES: Headline[] = [
  headline("cold `countersign check` (code cache in place)", "analyze", COLD_CHECK, [COLD_CHECK, 3, ""], {
    text: "≤ 0.50 × tsc 5",
    check: (f, b) => f <= 0.5 * b,
  }),
  headline("cold `tsc --noEmit`, TypeScript 7 (native), for scale", "analyze", "cold `tsc --noEmit`, TypeScript 7", [
    COLD_CHECK,
    3,
    "",
  ]),
  headline(
    "warm analysis of a 50-line program",
    "analyze",
    "warm analysis, same analyzer",
    ["warm analysis, same analyzer", 3, ""],
    { text: "< 20 ms", check: (f) => f < 20 },
  ),
  headline(
    "`countersign check` through a running authority",
    "authority",
    "`countersign check --json` through a running authority",
    ["`countersign check --json` through a running authority", 3, ""],
    {
      text: "≤ 1.00 × tsc 7",
      check: (f, b) => f <= b,
    },
  ),
  headline(
    "policy decide(), 20 effects × 50 rules",
    "policy",
    "countersign decide(): three-valued",
    ["baseline: Cedar", 1, "Cedar"],
    { text: "≤ 0.10 × Cedar", check: (f, b) => f <= 0.1 * b },
  ),
  headline(
    "verifyReceipt, all checks",
    "receipt",
    "verifyReceipt (all checks",
    ["baseline: raw Ed25519 verify", 1, "node:crypto verify"],
    { text: "≤ 2 × node:crypto", check: (f, b) => f <= 2 * b },
  ),
  headline(
    "checkCall, 5-grant receipt",
    "receipt",
    "checkCall, 5-grant receipt",
    ["baseline: the bare satisfies()", 1, "bare satisfies()"],
    { text: "< 5 µs", check: (f) => f < 0.005 },
  ),
  ...(["SQLite", "PostgreSQL"] as const).flatMap((db) => [
    headline(
      `authority, ${db}: auto-approved, distinct programs (requests/s)`,
      "authority",
      `${db}: auto-approved, distinct programs`,
      BARE_HONO,
      { text: "≥ 150/s", check: (f) => f >= 150 },
    ),
    headline(
      `authority, ${db}: auto-approved, one program repeated (requests/s)`,
      "authority",
      `${db}: auto-approved, one program repeated`,
      BARE_HONO,
      { text: "≥ 2,000/s", check: (f) => f >= 2000 },
    ),
    headline(
      `authority, ${db}: pending, one program repeated (requests/s)`,
      "authority",
      `${db}: pending (asks a person)`,
      BARE_HONO,
    ),
    // The ratio the section gives: the median of each round's ratio to the same round's baseline,
    // which a change in the machine's load between rounds does not tilt (a ratio of medians would).
    {
      ...headline(
        `authority, ${db}: repeated, with 1,000 event streams open (ratio to none open)`,
        "authority-streams",
        `${db}: auto-approved, one program repeated, 1,000 event streams open`,
        [`${db}: auto-approved, one program repeated, no event streams open`, 1, "none open (requests/s)"],
        { text: "≥ 0.90×", check: (f) => f >= 0.9 },
      ),
      figure: {
        section: "authority-streams",
        row: `${db}: auto-approved, one program repeated, 1,000 event streams open`,
        column: 2,
      },
    },
  ]),
  ...["idle SQLite store", "SQLite store of 10,000 requests"].map((store) =>
    headline(
      `\`countersign serve\` start to first /healthz answer, ${store}`,
      "authority-streams",
      `\`countersign serve\`, ${store}`,
      ["baseline: a bare Node HTTP server", 1, "bare node:http"],
      {
        text: "≤ 1,000 ms",
        check: (f) => f <= 1000,
      },
    ),
  ),
  headline(
    "sandbox overhead per run (20 trusted calls), realm prepared ahead",
    "sandbox",
    "sandbox overhead per run",
    ["baseline: 20 × callWithReceipt", 1, "the 20 calls from the host"],
    { text: "< 10 ms", check: (f) => f < 10 },
  ),
  headline(
    "sandbox overhead per run (20 trusted calls), cold",
    "sandbox",
    "sandbox overhead per run, cold",
    ["baseline: 20 × callWithReceipt", 1, "the 20 calls from the host"],
    { text: "< 10 ms", check: (f) => f < 10 },
  ),
  headline(
    "one trusted call from the sandbox",
    "sandbox",
    "per trusted call in the sandbox",
    ["the same call made directly", 1, "a direct connector call"],
    { text: "< 0.5 ms", check: (f) => f < 0.5 },
  ),
  headline(
    "executeAction fs.list_dir through the plugin pool",
    "sandbox-plugin-call",
    "executeAction fs.list_dir through the pool",
    ["baseline: the fs_list host operation", 1, "the host operation called directly"],
  ),
  headline(
    "store, SQLite: auto-approved submit with its receipt, one caller (requests/s)",
    "store",
    "SQLite: auto-approved submit",
    ["SQLite baseline: bare INSERT", 1, "bare INSERT"],
  ),
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
        .map((l) =>
          l
            .slice(1, -1)
            .split(" | ")
            .map((c) => c.trim()),
        ),
    });
  }
  return out;
}

/** A figure as written (273.7 ms, 976 µs, 8,610, 1.51×), in milliseconds when it is a time. */
export function parseFigure(text: string): number | undefined {
  // the first number with a unit ("tsc 5 --noEmit 589.4 ms" is 589.4 ms), else a bare count ("8,610")
  const m =
    /(-?[0-9][0-9,]*(?:\.[0-9]+)?)\s*(ms|µs|us|s\b|\/s|×)/.exec(text) ?? /^(-?[0-9][0-9,]*(?:\.[0-9]+)?)()/.exec(text);
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
    const met =
      h.target === undefined || figure === undefined
        ? ""
        : baseline === undefined && h.target.check.length > 1
          ? "?"
          : h.target.check(figure, baseline ?? NaN)
            ? "met"
            : "**not met**";
    const bare = baselineText?.replace(/\s*\(target[^)]*\)/, "");
    const shownBaseline =
      bare === undefined ? "missing" : h.baseline.label === "" ? bare : `${h.baseline.label} ${bare}`;
    rows.push([
      h.what,
      figureText ?? "missing",
      shownBaseline,
      h.target?.text ?? "",
      met,
      `[${h.figure.section}](#${anchor(sections.get(h.figure.section)?.title ?? h.figure.section)})`,
    ]);
  }
  const used = [...new Set(HEADLINES.flatMap((h) => [h.figure.section, h.baseline.section]))];
  const machines = [
    ...new Set([...sections.values()].map((s) => s.measured.replace(/^\d{4}-\d\d-\d\d on /, "")).filter(Boolean)),
  ];
  const reproduce = used
    .filter((n) => sections.has(n))
    .map(
      (n) =>
        `- ${sections.get(n)!.title}: \`${sections.get(n)!.reproduce}\` (${sections.get(n)!.measured.split(" on ")[0]})`,
    );
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

const anchor = (title: string): string =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, "")
    .replace(/ /g, "-");

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

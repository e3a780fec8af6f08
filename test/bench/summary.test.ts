// The summary table of BENCHMARKS.md reads each section's figures: units, ratios to the baseline,
// met / not met, and a row whose figure is gone shows as missing.
import { describe, expect, it } from "vitest";
import { parseFigure, summarize } from "../../bench/summary.js";

const section = (name: string, title: string, rows: string[][]) =>
  `<!-- bench:${name} -->\n## ${title}\n\nMeasured 2030-01-01 on 2 cores, Test CPU, Node v20.0.0. Reproduce: \`npx tsx bench/${name}.bench.ts\`.\n\n| what | time |\n| --- | --- |\n${rows.map((r) => `| ${r.join(" | ")} |`).join("\n")}\n<!-- /bench:${name} -->`;

describe("bench summary", () => {
  it("reads figures with their units, the first number that has one", () => {
    expect(parseFigure("273.7 ms")).toBe(273.7);
    expect(parseFigure("976 µs")).toBeCloseTo(0.976);
    expect(parseFigure("1.2 s")).toBe(1200);
    expect(parseFigure("8,610")).toBe(8610);
    expect(parseFigure("tsc 5 --noEmit 589.4 ms (target ≤ 0.50)")).toBe(589.4);
    expect(parseFigure("n/a")).toBeUndefined();
  });

  it("puts each figure beside its baseline and target, met or not, and says what is missing", () => {
    const text = [
      section("policy", "Policy decisions", [
        ["baseline: Cedar statefulIsAuthorized", "2.80 ms"],
        ["countersign decide(): three-valued rules", "110 µs"],
      ]),
      section("receipt", "Receipts", [
        ["baseline: raw Ed25519 verify", "50 µs"],
        ["verifyReceipt (all checks)", "120 µs"],
      ]),
    ].join("\n\n");
    const table = summarize(text);
    expect(table).toMatch(
      /\| policy decide\(\), 20 effects × 50 rules \| 110 µs \| Cedar 2\.80 ms \| ≤ 0\.10 × Cedar \| met \|/,
    );
    expect(table).toMatch(
      /\| verifyReceipt, all checks \| 120 µs \| node:crypto verify 50 µs \| ≤ 2 × node:crypto \| \*\*not met\*\* \|/,
    );
    expect(table).toMatch(/\| checkCall, 5-grant receipt \| missing \| missing \|/);
    expect(table).toContain("Machine: 2 cores, Test CPU, Node v20.0.0.");
    expect(table).toContain("- Policy decisions: `npx tsx bench/policy.bench.ts` (2030-01-01)");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAnalyzer, type Analyzer } from "../../../src/analyze/create-analyzer.js";
import { testManifests } from "../support/test-manifests.js";
import type { AdversarialCase } from "./case.js";
import { checkCase } from "./check-case.js";
import { endToEnd, type EndToEnd } from "./end-to-end.js";
import { costCases } from "./cases-cost.js";
import { countCases } from "./cases-counts.js";
import { crashCases } from "./cases-crashes.js";
import { grantCases } from "./cases-grants.js";
import { guaranteeCases } from "./cases-guarantees.js";
import { moduleCases } from "./cases-module.js";
import { typeCases } from "./cases-types.js";
import { unicodeCases } from "./cases-unicode.js";
import { valueCases } from "./cases-values.js";
import { collectionCases } from "./cases-collections.js";
import { STEP_BUDGET } from "../support/step-budget.js";

const set = testManifests();
let analyzer: Analyzer;
let e2e: EndToEnd;
beforeAll(async () => {
  analyzer = createAnalyzer(set, { budget: STEP_BUDGET });
  e2e = await endToEnd(set);
});
afterAll(() => analyzer?.dispose());

/** Slow cases run only when asked for: they are findings about time, measured in FINDINGS.md. */
const runSlow = process.env.COUNTERSIGN_SLOW === "1";
const SLOW_TIMEOUT_MS = 10 * 60_000;

const groups: [string, AdversarialCase[]][] = [
  ["grants against the facts", grantCases],
  ["value holes", valueCases],
  ["Maps, Sets and computed indexes", collectionCases],
  ["count holes", countCases],
  ["module order", moduleCases],
  ["type tricks", typeCases],
  ["addresses, hosts and paths", unicodeCases],
  ["guarantees", guaranteeCases],
  ["crashes", crashCases],
  ["cost", costCases],
];

/** The problems an open finding of each class shows today (see checkCase). */
function kindOf(c: AdversarialCase): string {
  if (typeof c.expect === "object" || c.expect === "budget") return "refusal:";
  const kinds: Record<string, string> = {
    "through-end-to-end": "end-to-end:",
    "facts-miss": "facts:",
    "proven-broken": "facts:",
    crash: "crash:",
    "over-refusal": "over-refusal:",
    slow: "facts:",
  };
  return kinds[c.open!.class]!;
}

describe("adversarial programs: facts cover every run, receipts admit nothing else", () => {
  for (const [group, cases] of groups) {
    describe(group, () => {
      for (const c of cases) {
        const test = c.slow !== undefined && !runSlow ? it.skip : it;
        if (c.open === undefined) {
          test(
            c.name,
            async () => {
              expect(await checkCase(analyzer, set, e2e, c)).toEqual([]);
            },
            c.slow === undefined ? undefined : SLOW_TIMEOUT_MS,
          );
          continue;
        }
        // Open: the finding still shows. When a fix lands this fails; then remove `open`.
        test(
          `${c.name} [open ${c.open.class}]`,
          async () => {
            const problems = await checkCase(analyzer, set, e2e, c);
            expect(
              problems.some((p) => p.startsWith(kindOf(c))),
              `expected a ${kindOf(c)} problem, got ${JSON.stringify(problems)}`,
            ).toBe(true);
          },
          c.slow === undefined ? undefined : SLOW_TIMEOUT_MS,
        );
      }
    });
  }

  it("every case has a unique name", () => {
    const names = groups.flatMap(([, cases]) => cases.map((c) => c.name));
    expect(new Set(names).size).toBe(names.length);
  });
});

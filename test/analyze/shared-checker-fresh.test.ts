// The shared checker against fresh analyzers over the corpus and the hostile type, module and
// aliasing cases: one new analyzer per program, which is what makes the file slow.
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/create-analyzer.js";
import { corpus } from "./corpus.js";
import { programOf } from "./harness.js";
import { aliasingCases } from "./hostile/cases-aliasing.js";
import { moduleCases } from "./hostile/cases-module.js";
import { typeCases } from "./hostile/cases-types.js";
import { located } from "./hostile/program.js";
import { STEP_BUDGET } from "./support/step-budget.js";
import { testManifests } from "./support/test-manifests.js";

const set = testManifests();
const analyzer = createAnalyzer(set, { budget: STEP_BUDGET });
afterAll(() => analyzer.dispose());

describe("the shared checker", () => {
  it("finds the facts a fresh analyzer finds, whatever it checked before", () => {
    const sources = [
      ...corpus.map(programOf),
      ...[...typeCases, ...moduleCases, ...aliasingCases].map((c) => located(c.source).source),
      // A message prints a union's members in the order the checker made them: here the checker
      // has made "yy" before "zz", and 7 before 5, when it checks the second program again.
      programOf({ main: `const x: "yy" | "zz" = "yy"; const q: 7 | 5 = 5;` }),
      programOf({ main: `const y: "zz" | "yy" | 5 | 7 = "c";` }),
    ];
    for (const source of sources) analyzer.analyze(source); // the shared checker has now seen them all
    for (const source of sources) {
      const fresh = createAnalyzer(set, { budget: STEP_BUDGET });
      expect(analyzer.analyze(source), source).toEqual(fresh.analyze(source));
      fresh.dispose();
    }
  }, 180_000); // a stall guard, not a timing target: it builds one analyzer per program
});

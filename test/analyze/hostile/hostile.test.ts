import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../../src/analyze/create-analyzer.js";
import type { Facts } from "../../../src/model/facts.js";
import { testManifests } from "../support/test-manifests.js";
import { aliasingCases } from "./cases-aliasing.js";
import { codeCases } from "./cases-code.js";
import { guaranteeCases } from "./cases-guarantees.js";
import { moduleCases } from "./cases-module.js";
import { encodingCases } from "./cases-encoding.js";
import { typeCases } from "./cases-types.js";
import type { HostileCase } from "./case.js";
import { located } from "./program.js";
import { STEP_BUDGET } from "../support/step-budget.js";

const analyzer = createAnalyzer(testManifests(), { budget: STEP_BUDGET });
afterAll(() => analyzer.dispose());

/** Cases the analyzer still gets wrong, by name: they run as expected failures until fixed. */
const OPEN = new Set<string>([]);

const where = (f: Facts): string =>
  JSON.stringify(f.diagnostics.map((d) => `${d.line}:${d.column} ${d.code} ${d.construct ?? ""}`));

function check(c: HostileCase): void {
  const { source, line, column } = located(c.source);
  const facts = analyzer.analyze(source);
  if ("seen" in c) {
    // Not refused is fine only if the call is visible where it is written.
    if (facts.ok)
      expect(facts.effects.map((e) => `${e.op} ${e.site.line}:${e.site.column}`)).toContain(
        `${c.seen.op} ${line}:${column}`,
      );
    return;
  }
  expect(facts.ok, where(facts)).toBe(false);
  expect(facts.effects).toEqual([]);
  const match = facts.diagnostics.find(
    (d) =>
      d.code === c.code &&
      d.line === line &&
      d.column === column &&
      (c.construct === undefined || d.construct === c.construct),
  );
  expect(match, `no ${c.code} ${c.construct ?? ""} at ${line}:${column}; got ${where(facts)}`).toBeDefined();
  expect(match!.severity).toBe("error");
}

const groups: [string, HostileCase[]][] = [
  ["code from strings, globals, hidden hooks", codeCases],
  ["trusted functions as values", aliasingCases],
  ["imports, exports and the program's form", moduleCases],
  ["guarantees that are not data", guaranteeCases],
  ["encodings and line ends", encodingCases],
  ["types the program asserts", typeCases],
];

describe("hostile programs", () => {
  for (const [group, cases] of groups) {
    describe(group, () => {
      for (const c of cases) (OPEN.has(c.name) ? it.fails : it)(c.name, () => check(c));
    });
  }

  it("has at least 40 refused cases", () => {
    expect(groups.flatMap(([, cases]) => cases).filter((c) => !("seen" in c)).length).toBeGreaterThanOrEqual(40);
  });
});

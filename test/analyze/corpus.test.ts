import { afterAll, describe, expect, it } from "vitest";
import { Facts } from "../../src/model/facts.js";
import { corpus } from "./corpus.js";
import { programOf, sharedAnalyzer } from "./harness.js";

const analyzer = sharedAnalyzer();
afterAll(() => analyzer.dispose());

describe("realistic corpus", () => {
  it("has at least 30 programs", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(30);
  });

  for (const entry of corpus) {
    it(entry.name, () => {
      const facts = analyzer.analyze(programOf(entry));
      expect(facts.diagnostics).toEqual([]);
      expect(() => Facts.parse(facts)).not.toThrow();
      expect(facts.effects.map((e) => ({ op: e.op, count: [e.count.min, e.count.max] }))).toEqual(
        entry.effects.map((e) => ({ op: e.op, count: e.count })),
      );
      entry.effects.forEach((expected, i) => {
        for (const [name, value] of Object.entries(expected.args ?? {}))
          expect(facts.effects[i]!.args[name], `${expected.op} ${name}`).toEqual(value);
      });
      expect(facts.guarantees.map((g) => g.status)).toEqual(entry.statuses ?? []);
      expect(facts.ok).toBe(!(entry.statuses ?? []).includes("refuted"));
    });
  }
});

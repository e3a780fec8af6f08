// The authority's facts cache: facts are reused only for the same bytes, entry, budget, manifests
// and analyzer; never across any of them.
import { describe, expect, it } from "vitest";
import { FactsCache } from "../../src/authority/facts-cache.js";
import type { ProgramInput } from "../../src/app/index.js";
import type { Facts } from "../../src/model/index.js";
import { programBytes } from "../../src/model/index.js";

function factsOf(program: ProgramInput, extra: Partial<Facts> = {}): Facts {
  const source = typeof program.source === "string" ? program.source : Buffer.from(program.source).toString("utf8");
  return {
    program: { sha256: programBytes(source).sha256, entry: program.entry },
    ok: true,
    diagnostics: [],
    effects: [],
    guarantees: [],
    summary: [source],
    rationale: "",
    ...extra,
  };
}

/** An analysis that counts its runs. */
function counting(result: (p: ProgramInput) => Facts | Promise<Facts> = factsOf): {
  analyze: (p: ProgramInput) => Promise<Facts>;
  runs: () => number;
} {
  let n = 0;
  return { analyze: async (p) => (n++, result(p)), runs: () => n };
}

const program: ProgramInput = { source: "export default 1;\n", entry: "a.ts" };
const context = { manifests: "m".repeat(64), analyzer: "0.1.0" };

describe("FactsCache", () => {
  it("analyzes a program once for the same bytes, manifests and analyzer", async () => {
    const cache = new FactsCache();
    const a = counting();
    const first = await cache.facts(program, context, a.analyze);
    expect(await cache.facts({ ...program }, { ...context }, a.analyze)).toBe(first);
    expect(
      await cache.facts({ ...program, source: new TextEncoder().encode(program.source as string) }, context, a.analyze),
    ).toBe(first); // the same bytes
    expect(a.runs()).toBe(1);
  });

  it("tells texts of one length apart, however many programs alternate", async () => {
    const cache = new FactsCache();
    const a = counting();
    const sources = Array.from({ length: 12 }, (_, i) => `export default ${String(i).padStart(2, "0")};\n`);
    for (let round = 0; round < 3; round++) {
      for (const source of sources) {
        const facts = await cache.facts({ source: `${source}`, entry: "a.ts" }, context, a.analyze);
        expect(facts.program.sha256).toBe(programBytes(source).sha256);
      }
    }
    expect(a.runs()).toBe(12);
  });

  it("never reuses facts across manifests, analyzer versions, bytes or budgets", async () => {
    const cache = new FactsCache();
    const a = counting();
    await cache.facts(program, context, a.analyze);
    await cache.facts(program, { ...context, manifests: "n".repeat(64) }, a.analyze);
    await cache.facts(program, { ...context, manifests: `${context.manifests}+${"a".repeat(64)}` }, a.analyze); // with agent manifests
    await cache.facts(program, { ...context, analyzer: "0.1.1" }, a.analyze);
    await cache.facts({ ...program, source: "export default 2;\n" }, context, a.analyze);
    await cache.facts({ ...program, budget: { ms: 100 } }, context, a.analyze);
    expect(a.runs()).toBe(6);
    // and each of them is kept under its own key
    await cache.facts(program, { ...context, analyzer: "0.1.1" }, a.analyze);
    await cache.facts(program, { ...context, manifests: "n".repeat(64) }, a.analyze);
    expect(a.runs()).toBe(6);
  });

  it("keys on the name a program goes by: its diagnostics and receipt name it", async () => {
    const cache = new FactsCache();
    const a = counting();
    await cache.facts(program, context, a.analyze);
    expect((await cache.facts({ ...program, entry: "b.ts" }, context, a.analyze)).program.entry).toBe("b.ts");
    expect((await cache.facts(program, context, a.analyze)).program.entry).toBe("a.ts");
    expect(a.runs()).toBe(2);
  });

  it("shares one analysis between simultaneous submissions of a program", async () => {
    const cache = new FactsCache();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const a = counting(async (p) => (await gate, factsOf(p)));
    const all = Array.from({ length: 5 }, () => cache.facts(program, context, a.analyze));
    release();
    const facts = await Promise.all(all);
    expect(new Set(facts).size).toBe(1);
    expect(a.runs()).toBe(1);
  });

  it("keeps neither failed analyses nor ones stopped past their budget", async () => {
    const cache = new FactsCache();
    let fail = true;
    const failing = counting((p) => {
      if (fail) throw new Error("the analysis thread died");
      return factsOf(p);
    });
    await expect(cache.facts(program, context, failing.analyze)).rejects.toThrow(/died/);
    fail = false;
    await cache.facts(program, context, failing.analyze);
    expect(failing.runs()).toBe(2);

    const overrun = counting((p) =>
      factsOf(p, {
        ok: false,
        diagnostics: [{ severity: "error", code: "analysis_budget_exceeded", message: "stopped", line: 1, column: 1 }],
      }),
    );
    const other = { ...program, source: "export default 3;\n" };
    await cache.facts(other, context, overrun.analyze);
    await cache.facts(other, context, overrun.analyze);
    expect(overrun.runs()).toBe(2);
  });

  it("forgets the least recently used programs past its size", async () => {
    const cache = new FactsCache(2);
    const a = counting();
    const p = (n: number): ProgramInput => ({ source: `export default ${n};\n`, entry: "a.ts" });
    await cache.facts(p(1), context, a.analyze);
    await cache.facts(p(2), context, a.analyze);
    await cache.facts(p(1), context, a.analyze); // 1 is now the most recent
    await cache.facts(p(3), context, a.analyze); // 2 goes
    expect(cache.size).toBe(2);
    await cache.facts(p(1), context, a.analyze);
    expect(a.runs()).toBe(3);
    await cache.facts(p(2), context, a.analyze);
    expect(a.runs()).toBe(4);
  });
});

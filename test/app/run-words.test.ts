import { describe, expect, it } from "vitest";
import { checkWords, trustedCallsWords } from "../../src/app/run-words.js";

describe("a run in words", () => {
  it("counts in the singular for one and the plural otherwise", () => {
    expect(checkWords({ effects: 1, guarantees: 1, proven: 1, enforced: 0 })).toBe(
      "1 effect, 1 guarantee (1 proven, 0 enforced at run time)",
    );
    expect(checkWords({ effects: 0, guarantees: 2, proven: 1, enforced: 1 })).toBe(
      "0 effects, 2 guarantees (1 proven, 1 enforced at run time)",
    );
    expect(trustedCallsWords(1)).toBe("1 trusted call");
    expect(trustedCallsWords(0)).toBe("0 trusted calls");
  });
});

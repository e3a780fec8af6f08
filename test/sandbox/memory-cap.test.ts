// Programs that allocate until the memory cap stops them: the waiting is what the test is for.
import { describe, expect, it } from "vitest";
import { program, run, texts } from "./helpers.js";

describe("the sandbox's memory cap", () => {
  it("stops huge allocations at the memory cap", async () => {
    const strings = await run(
      program(`const parts: string[] = [];\nfor (let i = 0; ; i++) parts.push("x".repeat(1 << 20) + i);`),
    );
    expect(strings).toMatchObject({
      outcome: "limit",
      limit: { class: "resource_limit_exceeded", details: { limit: "memory" } },
    });
    const one = await run(program(`const big = "x".repeat(1 << 29);\nconsole.log(big.length);`));
    expect(one).toMatchObject({ outcome: "limit", limit: { details: { limit: "memory" } } });
    const array = await run(program(`const a: number[] = [];\nfor (;;) a.push(a.length);`), {
      limits: { memoryBytes: 24 << 20 },
    });
    expect(array).toMatchObject({ outcome: "limit", limit: { details: { limit: "memory" } } });
  });

  it("holds a smaller memory cap when asked", async () => {
    const r = await run(
      program(
        `const parts: string[] = [];\nfor (let i = 0; i < 40; i++) parts.push("x".repeat(1 << 20) + i);\nconsole.log(parts.length);`,
      ),
      { limits: { memoryBytes: 32 << 20 } },
    );
    expect(r).toMatchObject({ outcome: "limit", limit: { details: { limit: "memory" } } });
    const roomy = await run(
      program(
        `const parts: string[] = [];\nfor (let i = 0; i < 40; i++) parts.push("x".repeat(1 << 20) + i);\nconsole.log(parts.length);`,
      ),
      { limits: { memoryBytes: 256 << 20 } },
    );
    expect(texts(roomy)).toEqual(["40"]);
  });
});

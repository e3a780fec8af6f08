// Slow: each program runs until its limit stops it, which is the point of the test.
// Programs that run away where QuickJS never asks its interrupt handler (native loops): the run
// still ends at its limit, the host's thread stays free meanwhile, and what the program did
// before is reported. Array methods refuse lengths past the environment's cap before they walk.
import { describe, expect, it } from "vitest";
import { MAX_ARRAY_LENGTH } from "../../src/environment/index.js";
import type { Json } from "../../src/model/index.js";
import { runProgram } from "../../src/sandbox/index.js";
import { KEPT_CALLS, KEPT_MESSAGE } from "../../src/sandbox/run-program.js";
import { MAX_INFLIGHT_CHARS } from "../../src/sandbox/trusted-call.js";
import { api, program, run, sha256 } from "./helpers.js";

const mail = `{ to: ["bob@example.com"], subject: "s", body: "b" }`;
const limits = { cpuMs: 300, wallMs: 60_000 };
// Loops inside one native call over 2^32-1 holes: no array method, so no cap; only terminating the thread stops them.
const NATIVE_LOOPS: Record<string, string> = {
  spread: `const a: number[] = []; a.length = 2 ** 32 - 1; return [...a].length;`,
  "JSON.stringify": `const a: number[] = []; a.length = 2 ** 32 - 1; return JSON.stringify(a).length;`,
  "Array.from": `return Array.from({ length: 2 ** 32 - 1 }).length;`,
  // A string search that compares 2^12 characters at each of 2^24 places, allocating nothing.
  "String.prototype.includes": `return "a".repeat(2 ** 24).includes("a".repeat(2 ** 12) + "b");`,
};

/** Run `body` after one trusted call, counting the host's timer ticks from that call's answer on (the loop's time). */
async function afterACall(body: string, runLimits: Record<string, number> = limits, signal?: AbortSignal) {
  const bytes = Buffer.from(program(`await sendEmail(${mail});\n${body}`));
  let ticks = 0;
  let timer: NodeJS.Timeout | undefined;
  try {
    const result = await runProgram({
      source: bytes,
      sha256: sha256(bytes),
      entry: "program.ts",
      api,
      limits: runLimits,
      ...(signal === undefined ? {} : { signal }),
      invoke: async () => {
        timer = setInterval(() => ticks++, 5);
        return { id: "m1" };
      },
    });
    return { result, ticks };
  } finally {
    clearInterval(timer);
  }
}

describe("a program looping inside one native call", () => {
  for (const [name, body] of Object.entries(NATIVE_LOOPS)) {
    it(`is stopped at its CPU limit from outside, the host ticking meanwhile, the call before it reported: ${name}`, async () => {
      const { result, ticks } = await afterACall(body);
      expect(result).toMatchObject({
        outcome: "limit",
        value: null,
        calls: [{ op: "email.send_email", status: "done" }],
      });
      // A loop that allocates as it walks may fill the sandbox's memory first, depending on the machine's speed: that limit stops it too.
      const details = result.limit?.details as { limit?: string } | undefined;
      if (details?.limit === "memory") expect(result.limit).toMatchObject({ class: "resource_limit_exceeded" });
      else
        expect(result.limit).toMatchObject({
          class: "resource_limit_exceeded",
          details: { limit: "cpu", cpu_ms: 300, terminated: true },
        });
      expect(ticks).toBeGreaterThan(0); // the host's event loop turned while the program looped
    });
  }

  it("is stopped from outside when the loop allocates nothing", async () => {
    const { result } = await afterACall(NATIVE_LOOPS["String.prototype.includes"]!);
    expect(result.limit).toMatchObject({
      class: "resource_limit_exceeded",
      details: { limit: "cpu", cpu_ms: 300, terminated: true },
    });
  });

  it("is stopped at its wall limit when its CPU limit is far off", async () => {
    const { result } = await afterACall(NATIVE_LOOPS["String.prototype.includes"]!, { cpuMs: 600_000, wallMs: 8_000 });
    expect(result).toMatchObject({ outcome: "limit", calls: [{ status: "done" }] });
    expect(result.limit).toMatchObject({ details: { limit: "wall", wall_ms: 8_000, terminated: true } });
  });

  it("is stopped when the run is aborted (Ctrl-C), whatever its limits", async () => {
    const abort = new AbortController();
    const bytes = Buffer.from(program(`await sendEmail(${mail});\n${NATIVE_LOOPS.spread!}`));
    const result = await runProgram({
      source: bytes,
      sha256: sha256(bytes),
      entry: "program.ts",
      api,
      limits: { cpuMs: 600_000, wallMs: 600_000 },
      signal: abort.signal,
      invoke: async () => {
        setTimeout(() => abort.abort(), 200); // once the loop has started
        return { id: "m1" };
      },
    });
    expect(result).toMatchObject({ outcome: "limit", calls: [{ op: "email.send_email", status: "done" }] });
    expect(result.limit).toMatchObject({ class: "resource_limit_exceeded", details: { limit: "interrupted" } });
  });

  it("leaves the next run a working sandbox", async () => {
    await afterACall(NATIVE_LOOPS.spread!);
    expect(await run(program(`return 1 + 1;`))).toMatchObject({ outcome: "returned", value: 2 });
  });
});

describe("array methods over a length past the cap", () => {
  const huge = `const a: number[] = []; a.length = 2 ** 32 - 1;`;
  const refused: Record<string, string> = {
    join: `${huge} return a.join();`,
    indexOf: `${huge} return a.indexOf(1);`,
    includes: `${huge} return a.includes(1);`,
    reverse: `${huge} return a.reverse().length;`,
    sort: `const a: number[] = []; a[2 ** 32 - 2] = 1; return a.sort().length;`,
    "flat(Infinity)": `${huge} return [a].flat(Infinity as 1).length;`,
    "flat over nested arrays each under the cap": `const a: number[] = []; a.length = ${MAX_ARRAY_LENGTH / 2}; return [a, a, a].flat().length;`,
    "flatMap returning a long array": `${huge} return [1].flatMap(() => a).length;`,
    concat: `const a: number[] = []; a.length = ${MAX_ARRAY_LENGTH / 2}; return a.concat(a, a).length;`,
    forEach: `${huge} a.forEach(() => {}); return 0;`,
    "an array-like": `const like = { length: 2 ** 53 - 1, join: ([] as number[]).join }; return like.join();`,
  };
  for (const [name, body] of Object.entries(refused)) {
    it(`throws a RangeError before walking: ${name}`, async () => {
      const r = await run(program(`try { ${body} } catch (e) { return [(e as Error).name, (e as Error).message]; }`), {
        limits,
      });
      expect(r).toMatchObject({
        outcome: "returned",
        value: ["RangeError", expect.stringContaining(`at most ${MAX_ARRAY_LENGTH}`)],
      });
    });
  }

  it("refuses an array-like whose length is an accessor (it could answer the check and the walk differently)", async () => {
    const r = await run(
      program(`let n = 0;
const like = { get length() { return n++ === 0 ? 1 : 2 ** 53 - 1; }, join: ([] as number[]).join };
try { return like.join(); } catch (e) { return [(e as Error).name, n]; }`),
      { limits },
    );
    expect(r).toMatchObject({ outcome: "returned", value: ["TypeError", 0] }); // the getter never ran
  });

  it("works as before under the cap, names and lengths kept", async () => {
    const r = await run(
      program(`const a = [3, 1, 2];
return [a.join("-"), a.indexOf(2), a.includes(1), [...a].sort(), [[1, [2]], 3].flat(), [1, 2].flatMap((x) => [x, x]), a.concat([4], 5), a.reduce((x, y) => x + y),
  [a.join.name, a.join.length, a.reduce.length, a.flat.length, a.concat.length]];`),
    );
    expect(r).toMatchObject({
      outcome: "returned",
      value: ["3-1-2", 2, true, [1, 2, 3], [1, [2], 3], [1, 1, 2, 2], [3, 1, 2, 4, 5], 6, ["join", 1, 1, 0, 1]],
    });
  });
});

describe("what a run keeps of its calls", () => {
  it("keeps the first calls and counts the rest, each error message clipped, whatever the arguments' size", async () => {
    const extra = 150;
    const big = "x".repeat(20_000);
    const result = await run(
      program(`const big = "x".repeat(20000);
for (let i = 0; i < ${KEPT_CALLS + extra}; i++) { try { await sendEmail({ to: ["bob@example.com"], subject: String(i), body: big }); } catch {} }
return 1;`),
      {
        limits: { cpuMs: 60_000 },
        answer: async (_op, args: Record<string, Json>) =>
          Promise.reject(
            new (await import("../../src/model/index.js")).CountersignError(
              "connector_error",
              "connector",
              `refused: ${String(args.body)}`,
            ),
          ),
      },
    );
    expect(result).toMatchObject({ outcome: "returned", value: 1, callsOmitted: extra });
    expect(result.calls).toHaveLength(KEPT_CALLS);
    expect(result.invoked).toHaveLength(KEPT_CALLS + extra); // every call was made: only the record is bounded
    for (const call of result.calls) expect(call.error!.message.length).toBeLessThanOrEqual(KEPT_MESSAGE + 1);
    expect(result.calls[0]!.error!.message.startsWith(`refused: ${big.slice(0, 100)}`)).toBe(true);
  });
});

describe("calls in flight", () => {
  it("wait in the sandbox once the host holds MAX_INFLIGHT_CHARS of their arguments, and go out as earlier ones are answered", async () => {
    const size = 500_000;
    const count = Math.ceil(MAX_INFLIGHT_CHARS / size) + 8;
    let inFlight = 0;
    let most = 0;
    const result = await run(
      program(`const big = "x".repeat(${size});
const calls = [];
for (let i = 0; i < ${count}; i++) calls.push(sendEmail({ to: ["bob@example.com"], subject: String(i), body: big }));
await Promise.all(calls);
return calls.length;`),
      {
        limits: { cpuMs: 60_000, memoryBytes: 128 << 20 },
        answer: () => {
          most = Math.max(most, ++inFlight);
          return new Promise((resolve) => setTimeout(() => (inFlight--, resolve({ id: "m" })), 1));
        },
      },
    );
    expect(result).toMatchObject({ outcome: "returned", value: count });
    expect(result.invoked).toHaveLength(count);
    expect(most).toBeLessThanOrEqual(Math.floor(MAX_INFLIGHT_CHARS / size)); // never all at once
  });
});

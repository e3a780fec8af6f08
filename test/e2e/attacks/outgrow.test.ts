// A run that tries to outgrow its limits through trusted calls rather than JavaScript: thousands
// of calls with megabyte arguments that the receipt refuses after the first. The runner must stay
// within its bounds (the process ends by itself, not by a crash), and the world sees no more
// effects than the program's own guarantee allows.
import { describe, expect, it } from "vitest";
import { allowUrlsUnder, program, shown, useWorld } from "./world.js";

const BOUND_MS = 150_000;
const w = useWorld({
  policies: (world) => ({
    "attacks.toml": `default = "deny"

${allowUrlsUnder(`${world.sinks[0]!.origin}/public/`, "http.post")}`,
  }),
});

describe("many refused calls with big arguments", () => {
  it(
    "the run ends by itself and the sink sees exactly the one call the guarantee allows",
    async () => {
      const s = w.sinks[0]!;
      const source = program(
        `    const big = "x".repeat(1 << 20);
    let refused = 0;
    for (let i = 0; i < 20000; i++) {
      try { await post({ url: "${s.origin}/public/n", body: big + i }); } catch { refused = refused + 1; }
    }
    console.log(refused);`,
        { imports: `import { post } from "trusted/http";`, guarantees: `{ op: "http.post", count: { max: 1 } }` },
      );
      const r = await w.run(source, { boundMs: BOUND_MS });
      const said = `exit ${r.code}${r.killed ? " (killed at the bound)" : ""}\n${r.stdout.slice(0, 2000)}${r.stderr.slice(0, 2000)}`;
      if (/^\d+:\d+: error/m.test(r.stdout + r.stderr)) throw new Error(`refused by the analysis:\n${said}`);
      expect(r.killed, said).toBe(false);
      expect(r.code, said).not.toBeNull(); // ended, not killed by a signal (an out-of-memory abort)
      expect(r.stderr, said).not.toMatch(/heap out of memory|FATAL ERROR|Aborted/);
      // Exactly the one call: the first went through (the case is not vacuous), no other did.
      expect(s.received.length, `${shown(s.received.slice(0, 3))}\n${said}`).toBe(1);
    },
    BOUND_MS + 30_000,
  );
});

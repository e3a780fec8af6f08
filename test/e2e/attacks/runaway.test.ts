// Runaway JavaScript: programs with no trusted call (so the policy lets them run without asking)
// that spend their time inside one native built-in (regex backtracking, a huge sparse array
// walked by indexOf, a fill of a billion slots). A run must end by its limits whatever the
// JavaScript, and `countersign mcp` must go on answering while such a run is in progress.
// The bound below is generous (the default wall-clock limit is 60 s); nothing asserts speed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, program, ROOT, useWorld } from "./world.js";

const BOUND_MS = 150_000;

// The shipped policy, its listed host made the sink's: the MCP case's program first GETs it.
const w = useWorld({
  policies: (world) => ({
    "default.toml": readFileSync(join(ROOT, "policies", "default.toml"), "utf8").replaceAll(
      "api.example.com",
      world.sinks[0]!.host,
    ),
  }),
});

const RUNAWAYS: Record<string, string> = {
  "regex backtracking": `    console.log(/(a+)+$/.test("a".repeat(40) + "b"));`,
  "indexOf over 2^32-1 holes": `    const a: number[] = Array(2 ** 32 - 1);\n    console.log(a.indexOf(1));`,
  "a sparse array's last slot": `    const a: number[] = [];\n    a[2 ** 32 - 2] = 1;\n    console.log(a.indexOf(2), a.join().length);`,
  "fill of 2^30 slots": `    console.log(Array(2 ** 30).fill(0).length);`,
  "Array.from 2^31": `    console.log(Array.from({ length: 2 ** 31 }).length);`,
  "alternation over a long string": `    console.log("ab".repeat(2 ** 20).replace(/(a|b|ab)*c/g, "x").length);`,
};

describe("a program stuck in a native built-in", () => {
  it(
    "countersign run ends with a limit error for each, within the bound",
    async () => {
      // Together: each is bounded by its own limits, so running them side by side changes nothing.
      const runs = await Promise.all(
        Object.entries(RUNAWAYS).map(async ([label, body]) => ({
          label,
          r: await w.run(program(body), { boundMs: BOUND_MS }),
        })),
      );
      const stuck = runs
        .filter(({ r }) => r.killed)
        .map(({ label }) => `${label}: still running after ${BOUND_MS / 1000} s`);
      expect(stuck).toEqual([]);
      // Ended by a limit: exit 6 (execution failed), not a result.
      const notLimited = runs
        .filter(({ r }) => r.code !== 6)
        .map(({ label, r }) => `${label}: exit ${r.code}\n${r.stdout}${r.stderr}`);
      expect(notLimited).toEqual([]);
    },
    BOUND_MS + 60_000,
  );

  it(
    "countersign mcp answers tools/list while run_program is stuck",
    async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "mcp"],
        cwd: w.home,
        env: { ...(process.env as Record<string, string>), ...(w.env as Record<string, string>) },
        stderr: "pipe",
      });
      const client = new Client({ name: "countersign-attacks", version: "1.0.0" });
      await client.connect(transport);
      try {
        // The program GETs /start, then spins. The sink holds that answer until the test lets it go:
        // once it is written out the run is past its last await and into the built-in.
        const start = w.sinks[0]!.hold("/start");
        const stuck = client
          .callTool(
            {
              name: "run_program",
              arguments: {
                program: program(
                  `    await get({ url: "${w.sinks[0]!.origin}/start" });\n${RUNAWAYS["indexOf over 2^32-1 holes"]!}`,
                  { imports: `import { get } from "trusted/http";` },
                ),
              },
            },
            undefined,
            { timeout: BOUND_MS },
          )
          .catch((err: unknown) => err);
        await start.arrived;
        start.release();
        await start.answered;
        // The answer still has to reach the plugin and the sandbox: a moment, not a speed assertion.
        await new Promise((r) => setTimeout(r, 2_000));
        const listed = await client.listTools(undefined, { timeout: 30_000 }).then(
          (answer) => answer.tools.map((t) => t.name),
          (err: unknown) => `no answer: ${(err as Error).message}`,
        );
        expect(listed).toEqual(expect.arrayContaining(["run_program", "check_program"]));
        void stuck;
      } finally {
        await client.close();
      }
    },
    BOUND_MS,
  );
});

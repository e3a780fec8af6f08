// The authority's answer to `check` is read without zod (check-answer.ts): whatever it holds,
// `check` prints the facts or says where the answer is wrong, and never crashes while printing.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_ANSWER_BYTES } from "../../src/cli/authority-client.js";
import { readCheckAnswer } from "../../src/cli/check-answer.js";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { CheckResult } from "../../src/model/api.js";
import { CountersignError } from "../../src/model/errors.js";
import { packageRoot } from "../../src/model/paths.js";
import { isolatedEnv } from "../support/isolated-env.js";

function capture(env: NodeJS.ProcessEnv = {}): Io & { out: string; err: string } {
  const io = {
    out: "",
    err: "",
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    readStdin: async () => "",
    env: isolatedEnv(env),
    cwd: packageRoot,
  };
  return io;
}

type Answer = {
  facts: Record<string, unknown> & { effects: Record<string, unknown>[]; diagnostics: unknown[] };
  decision: Record<string, unknown>;
};

// A real answer: the facts and decision of an example checked here (no authority is configured).
let valid: Answer;
beforeAll(async () => {
  const io = capture();
  expect(await main(["check", "examples/notify-team.ts", "--json"], io)).toBe(0);
  const { decision, ...facts } = JSON.parse(io.out);
  // --json leaves out what the op name says: the answer has it
  const effects = facts.effects.map((e: { op: string }) => ({
    ...e,
    connector: e.op.split(".")[0],
    action: e.op.split(".")[1],
  }));
  valid = {
    facts: {
      ...facts,
      effects,
      diagnostics: [{ severity: "warning", code: "unsupported", message: "m", line: 1, column: 1 }],
    },
    decision,
  };
  expect(valid.facts.effects.length).toBeGreaterThan(0);
  expect(() => CheckResult.parse(valid)).not.toThrow();
}, 120_000);

// Each breaks one field the CLI reads; the path the error must name.
const BROKEN: [string, (a: Answer) => unknown][] = [
  ["the answer", () => null],
  ["the answer", () => [1, 2]],
  ["facts", (a) => ({ decision: a.decision })],
  ["facts", (a) => ({ ...a, facts: "facts" })],
  ["facts.program", (a) => ({ ...a, facts: { ...a.facts, program: undefined } })],
  ["facts.program.sha256", (a) => ({ ...a, facts: { ...a.facts, program: { sha256: "abc", entry: "x.ts" } } })],
  ["facts.ok", (a) => ({ ...a, facts: { ...a.facts, ok: "yes" } })],
  ["facts.diagnostics", (a) => ({ ...a, facts: { ...a.facts, diagnostics: {} } })],
  [
    "facts.diagnostics[0].severity",
    (a) => ({
      ...a,
      facts: { ...a.facts, diagnostics: [{ ...(a.facts.diagnostics[0] as object), severity: "fatal" }] },
    }),
  ],
  [
    "facts.diagnostics[0].line",
    (a) => ({ ...a, facts: { ...a.facts, diagnostics: [{ ...(a.facts.diagnostics[0] as object), line: 0 }] } }),
  ],
  ["facts.effects", (a) => ({ ...a, facts: { ...a.facts, effects: undefined } })],
  ["facts.effects[0].op", (a) => ({ ...a, facts: { ...a.facts, effects: [{ ...a.facts.effects[0], op: 7 }] } })],
  [
    "facts.effects[0].site.column",
    (a) => ({ ...a, facts: { ...a.facts, effects: [{ ...a.facts.effects[0], site: { line: 1, column: 1.5 } }] } }),
  ],
  ["facts.effects[0].args", (a) => ({ ...a, facts: { ...a.facts, effects: [{ ...a.facts.effects[0], args: null }] } })],
  [
    "facts.effects[0].count.max",
    (a) => ({ ...a, facts: { ...a.facts, effects: [{ ...a.facts.effects[0], count: { min: 0, max: -1 } }] } }),
  ],
  [
    "facts.effects[0].agentAction.step",
    (a) => ({
      ...a,
      facts: { ...a.facts, effects: [{ ...a.facts.effects[0], agentAction: { op: "agent.x", description: "" } }] },
    }),
  ],
  [
    "facts.guarantees[0].status",
    (a) => ({ ...a, facts: { ...a.facts, guarantees: [{ source: {}, text: "t", status: "maybe", why: "w" }] } }),
  ],
  ["facts.summary[1]", (a) => ({ ...a, facts: { ...a.facts, summary: ["one", 2] } })],
  ["facts.rationale", (a) => ({ ...a, facts: { ...a.facts, rationale: undefined } })],
  ["facts.agentManifests.sha256", (a) => ({ ...a, facts: { ...a.facts, agentManifests: { sha256: "F".repeat(64) } } })],
  ["decision", (a) => ({ facts: a.facts })],
  ["decision.kind", (a) => ({ ...a, decision: { ...a.decision, kind: ["auto_approved"] } })],
];

describe("the authority's answer to check, read without zod", () => {
  it("takes a real answer as it is", () => {
    expect(readCheckAnswer(valid, "http://a")).toBe(valid);
  });

  it.each(BROKEN)("names %s when it is wrong, as a network_error of the authority", (path, breakIt) => {
    const answer = breakIt(structuredClone(valid));
    let thrown: unknown;
    try {
      readCheckAnswer(answer, "http://127.0.0.1:1");
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(CountersignError);
    expect(thrown).toMatchObject({ class: "network_error", boundary: "authority", details: { path } });
    expect((thrown as Error).message).toContain(
      `the authority at http://127.0.0.1:1 answered /v1/check with a malformed answer: ${path} `,
    );
    // Never stricter than the schema: what the plain check refuses, CheckResult refuses too.
    expect(CheckResult.safeParse(answer).success).toBe(false);
  });
});

describe("countersign check against an authority that answers wrong", () => {
  let server: Server;
  let answer: (res: import("node:http").ServerResponse) => void = () => {};
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => answer(res));
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  const check = async (json: boolean) => {
    const io = capture({ COUNTERSIGN_URL: url, COUNTERSIGN_TOKEN: "t" });
    const code = await main(["check", "examples/notify-team.ts", ...(json ? ["--json"] : [])], io);
    return { code, out: io.out, err: io.err };
  };
  const send = (status: number, body: string) => (res: import("node:http").ServerResponse) =>
    res.writeHead(status, { "content-type": "application/json" }).end(body);

  it("prints the facts it answered, as a local check would", async () => {
    answer = send(200, JSON.stringify({ ...valid, extra: "x".repeat(1 << 20) }));
    const { code, out } = await check(true);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ ok: true, program: valid.facts.program, decision: valid.decision });
  });

  it("says where a malformed answer is wrong, in the text output and under --json", async () => {
    answer = send(
      200,
      JSON.stringify({ ...valid, facts: { ...valid.facts, effects: [{ ...valid.facts.effects[0], site: "here" }] } }),
    );
    const text = await check(false);
    expect(text.code).toBe(2);
    expect(text.err).toBe(
      `countersign: network_error: the authority at ${url} answered /v1/check with a malformed answer: facts.effects[0].site is not an object\n`,
    );
    const json = await check(true);
    expect(JSON.parse(json.out)).toMatchObject({
      error: { class: "network_error", boundary: "authority", details: { path: "facts.effects[0].site" } },
    });
  });

  it("the text output checks the abstract arguments too, and names the one that is wrong", async () => {
    const [effect] = valid.facts.effects;
    const name = Object.keys(effect!.args as object)[0]!;
    answer = send(
      200,
      JSON.stringify({
        ...valid,
        facts: { ...valid.facts, effects: [{ ...effect, args: { [name]: { kind: "maybe" } } }] },
      }),
    );
    const text = await check(false);
    expect(text.code).toBe(2);
    expect(text.err).toMatch(
      new RegExp(
        `^countersign: network_error: the authority at ${url} answered /v1/check with a malformed answer: facts\\.effects\\[0\\]\\.args\\.${name}(\\.kind)? is wrong: .+\n$`,
      ),
    );
    // --json prints what it does not interpret as the authority said it
    expect(JSON.parse((await check(true)).out).effects[0].args[name]).toEqual({ kind: "maybe" });
  });

  it("throws the error envelope it answers as that error, and ignores an envelope's unknown fields", async () => {
    answer = send(
      403,
      JSON.stringify({
        error: { class: "capability_denied", message: "revoked", retriable: false, boundary: "authority", more: 1 },
      }),
    );
    const { code, err } = await check(false);
    expect(code).toBe(2);
    expect(err).toBe("countersign: capability_denied: revoked\n");
  });

  it("an answer that is no envelope and no success is an HTTP error", async () => {
    answer = send(
      500,
      JSON.stringify({ error: { class: "no_such_class", message: "x", retriable: false, boundary: "authority" } }),
    );
    const { err } = await check(false);
    expect(err).toBe(`countersign: network_error: the authority at ${url} answered HTTP 500\n`);
  });

  it("refuses an answer larger than the limit instead of reading it all", async () => {
    const chunk = Buffer.alloc(1 << 20, 0x61);
    answer = (res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.on("error", () => {}); // the client hangs up mid-answer
      let sent = 0;
      const more = (): void => {
        while (sent <= MAX_ANSWER_BYTES + chunk.length && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        res.end();
      };
      more();
    };
    const { code, err } = await check(false);
    expect(code).toBe(2);
    expect(err).toBe(
      `countersign: network_error: the authority at ${url} answered with more than ${MAX_ANSWER_BYTES} bytes\n`,
    );
  }, 60_000);
});

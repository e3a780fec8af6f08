// `countersign run --manifest` as an agent runs it: a real `countersign serve` process, `run`
// processes from the sources, and the example issue tracker on loopback. file-issue.ts calls the
// agent's own create_issue action; the person approves through the approver API.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeLoginLink } from "../../src/app/index.js";
import { callServe, loginServe, startServe, type ServeProcess } from "../authority/serve-process.js";
import { allowTracker, localized, startIssueTracker, type IssueTracker } from "../support/issue-tracker.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "src", "cli", "bin.ts");
const SLOW = 180_000; // CLI processes from the sources: tens of seconds each on a loaded machine

let home: string;
let data: string;
let env: NodeJS.ProcessEnv;
let serve: ServeProcess;
let tracker: IssueTracker;
let program: string; // file-issue.ts, its host the tracker's
let manifest: string; // create_issue.toml, likewise

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "countersign-run-manifest-e2e-"));
  data = join(home, ".countersign");
  tracker = await startIssueTracker();
  allowTracker(data, tracker.host);
  program = join(home, "file-issue.ts");
  writeFileSync(program, localized("examples/file-issue.ts", tracker.host));
  manifest = join(home, "create_issue.toml");
  writeFileSync(manifest, localized("examples/agent-manifests/create_issue.toml", tracker.host));
  env = { HOME: home, COUNTERSIGN_HOME: data, COUNTERSIGN_URL: "", COUNTERSIGN_TOKEN: "", COUNTERSIGN_DATABASE: "" };
  serve = await startServe(env);
});

afterAll(async () => {
  await serve?.stop();
  await tracker?.close();
  rmSync(home, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(args: string[], extraEnv: NodeJS.ProcessEnv = {}): { done: Promise<Ran>; stderr: () => string } {
  const child = spawn(process.execPath, ["--import", "tsx", BIN, "run", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Ran>((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
  return { done, stderr: () => stderr };
}

async function session() {
  return loginServe(serve.url, makeLoginLink({ dataDir: data, now: () => new Date() }, "alice"));
}

/** Approve a request as the person, through the approver API. */
async function approve(id: string): Promise<void> {
  expect(
    (
      await callServe(serve.url, "POST", `/v1/requests/${id}/decision`, {
        ...(await session()),
        body: { decision: "approved_once" },
      })
    ).status,
  ).toBe(200);
}

/** The request id once the run printed its review URL. */
async function reviewed(stderr: () => string): Promise<string> {
  for (;;) {
    const match = /review: \S+\/requests\/(req_[A-Za-z0-9_-]+)/.exec(stderr());
    if (match !== null) return match[1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const lines = (text: string) => text.trimEnd().split("\n");

describe("countersign run --manifest", () => {
  it(
    "file-issue.ts with create_issue.toml: asks, the person approves, the tracker gets the one POST with the issue",
    async () => {
      const before = tracker.received.length;
      const running = start([program, "--manifest", manifest]);
      const id = await reviewed(running.stderr);
      const request = await callServe(serve.url, "GET", `/v1/requests/${id}`, await session());
      expect(
        request.body.facts.effects.map((e: { op: string; agentAction?: { op: string } }) => [e.op, e.agentAction?.op]),
      ).toEqual([["http.post", "agent.create_issue"]]);
      await approve(id);
      const r = await running.done;
      expect(r.code).toBe(0);
      const out = lines(r.stdout);
      expect(out.slice(0, 2)).toEqual([
        "check: 1 effect, 2 guarantees (2 proven, 0 enforced at run time)",
        "policy: ask (http.post-asks)",
      ]);
      expect(out[2]).toMatch(/^approval: approved_once receipt=[A-Za-z0-9_-]{22} \(expires in \d+ s\)$/);
      expect(out.slice(3)).toEqual(["executed: main (1 trusted call)", "null"]);
      expect(tracker.received.slice(before)).toEqual([
        {
          method: "POST",
          url: "/repos/acme/widgets/issues",
          contentType: "application/json",
          body: JSON.stringify({ title: "Nightly build fails", body: "The nightly build has failed since Monday." }),
        },
      ]);
    },
    SLOW,
  );

  it(
    "a receipt approved with create_issue.toml replayed to a run with another manifest: exit 6, manifests_mismatch, not redeemed, nothing sent",
    async () => {
      // A receipt the person approved for file-issue.ts with create_issue.toml, never run.
      const token = readFileSync(join(data, "submitter.token"), "utf8").trim();
      const text = readFileSync(manifest, "utf8");
      const submitted = await callServe(serve.url, "POST", "/v1/requests", {
        token,
        body: { program: readFileSync(program, "utf8"), source_name: program, manifests: [{ name: manifest, text }] },
      });
      expect(submitted.status).toBe(202);
      await approve(submitted.body.id);
      const approved = (await callServe(serve.url, "GET", `/v1/requests/${submitted.body.id}/decision`, { token }))
        .body;
      expect(approved.status).toBe("approved");

      // The run holds a manifest that posts elsewhere; the authority's answers reach it through a
      // proxy that hands it the receipt above instead of the one for its own request.
      const pulls = join(home, "create_pull.toml");
      writeFileSync(pulls, text.replace("/issues", "/pulls"));
      const proxy = await replayProxy(serve.url, approved.receipt as string);
      try {
        const before = tracker.received.length;
        const running = start([program, "--manifest", pulls], { COUNTERSIGN_URL: proxy.url });
        await approve(await reviewed(running.stderr));
        const r = await running.done;
        expect(r.code).toBe(6);
        expect(r.stderr).toMatch(
          /^countersign: receipt_invalid: receipt refused \(manifests_mismatch\): the receipt is for agent manifests [0-9a-f]{64}, not [0-9a-f]{64}$/m,
        );
        expect(lines(r.stdout)).toEqual([
          "check: 1 effect, 2 guarantees (2 proven, 0 enforced at run time)",
          "policy: ask (http.post-asks)",
        ]);
        expect(proxy.redeemed).toBe(0);
        expect(tracker.received.length).toBe(before);
      } finally {
        await proxy.close();
      }
      // The replayed receipt was never spent: it redeems now.
      const claims = JSON.parse(
        Buffer.from((approved.receipt as string).split(".")[1]!, "base64url").toString("utf8"),
      ) as { jti: string; exp: number };
      expect(
        (await callServe(serve.url, "POST", `/v1/receipts/${claims.jti}/redeem`, { token, body: { exp: claims.exp } }))
          .status,
      ).toBe(200);
    },
    SLOW,
  );

  it(
    "--resume with other manifests than the request's: refused before anyone approves, nothing spent; the right ones then run",
    async () => {
      const detached = start([program, "--manifest", manifest, "--detach", "--json"]);
      const pending = await detached.done;
      expect(pending.code).toBe(7);
      const id = JSON.parse(pending.stdout).request_id as string;
      const pulls = join(home, "create_pull-resume.toml");
      writeFileSync(pulls, readFileSync(manifest, "utf8").replace("/issues", "/pulls"));
      for (const [args, reason] of [
        [["--manifest", pulls], /was submitted with other agent manifests than this run holds/],
        [[], /was submitted with agent manifests this run does not hold/],
      ] as const) {
        const r = await start([program, "--resume", id, "--detach", "--json", ...args]).done;
        expect(r.code).toBe(2);
        const out = JSON.parse(r.stdout);
        expect(out).toMatchObject({
          outcome: "invalid",
          request_id: id,
          error: { class: "usage_error", details: { reason: "manifests_mismatch" } },
        });
        expect(out.error.message).toMatch(reason);
      }
      const status = await callServe(serve.url, "GET", `/v1/requests/${id}`, await session());
      expect(status.body.status).toBe("pending"); // still the person's to decide
      const before = tracker.received.length;
      await approve(id);
      const ran = await start([program, "--resume", id, "--manifest", manifest]).done;
      expect(ran.code, ran.stderr).toBe(0);
      expect(tracker.received.length).toBe(before + 1);
    },
    SLOW,
  );

  it(
    "an invalid manifest: exit 1 with every problem, nothing submitted; one that cannot be read: exit 2",
    async () => {
      const bad = join(home, "bad.toml");
      writeFileSync(bad, readFileSync(manifest, "utf8").replace('op = "post"', 'op = "delete"'));
      const requests = async () =>
        (await callServe(serve.url, "GET", "/v1/requests?limit=500", await session())).body.requests.length as number;
      const before = await requests();
      const r = await start([program, "--manifest", bad]).done;
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/^countersign: analysis_rejected: invalid agent manifests \(1 error\):$/m);
      expect(r.stderr).toContain("execute[0].op");
      expect(await requests()).toBe(before);
      const missing = await start([program, "--manifest", join(home, "missing.toml")]).done;
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("missing.toml");
    },
    SLOW,
  );
});

/** Forwards every call to the authority, but an approved decision carries `receipt`; counts the redemptions it forwards. */
async function replayProxy(
  target: string,
  receipt: string,
): Promise<{ url: string; redeemed: number; close(): Promise<void> }> {
  const state = { redeemed: 0 };
  const server: Server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    if (/\/redeem$/.test(req.url ?? "")) state.redeemed++;
    const headers: Record<string, string> = {};
    for (const name of ["authorization", "content-type"])
      if (typeof req.headers[name] === "string") headers[name] = req.headers[name] as string;
    const answer = await fetch(target + req.url, { method: req.method!, headers, ...(body === "" ? {} : { body }) });
    let text = await answer.text();
    if (/\/decision\?/.test(req.url ?? "")) {
      const decision = JSON.parse(text) as { status: string; receipt?: string };
      if (decision.status === "approved") text = JSON.stringify({ ...decision, receipt });
    }
    res
      .writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" })
      .end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get redeemed() {
      return state.redeemed;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

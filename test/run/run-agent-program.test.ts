// The run use case against a real authority on 127.0.0.1 (SQLite), through the HTTP client the
// CLI uses, with real QuickJS, the real Extism plugins and the Gmail-shaped provider on loopback.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AuthorityClient, RunEvent, RunInput } from "../../src/app/index.js";
import { httpAuthority } from "../../src/cli/http-authority.js";
import { LOCAL_ISSUER } from "../../src/model/index.js";
import { issueReceipt } from "../../src/receipt/index.js";
import { openKeyring } from "../../src/store/index.js";
import { runHarnessForSuite, type HarnessRun } from "./harness.js";

const GMAIL_TOKEN = "run-test-token";

const mail = (to: string, guarantees = "[]") => `import { program } from "countersign";
import { sendEmail } from "trusted/email";

export default program({
  rationale: "Mail ${to}.",
  guarantees: ${guarantees},
  async main() {
    await sendEmail({ to: [${JSON.stringify(to)}], subject: "Hello", body: "From the run tests." });
  },
});
`;

/** Forwards a draft to whoever its To header names: the recipient is the provider's data, so recipientsOnly is enforced at run time. */
const forwardDraft = (id: string) => `import { program } from "countersign";
import { getDraft, sendEmail } from "trusted/email";
import { recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "Forward the draft to its recipient.",
  guarantees: [recipientsOnly(["bob@example.com"])],
  async main() {
    const draft = await getDraft({ id: ${JSON.stringify(id)} });
    const to = Array.isArray(draft.to) && typeof draft.to[0] === "string" ? draft.to[0] : "bob@example.com";
    try {
      await sendEmail({ to: [to], subject: "Fwd", body: "See the draft." });
    } catch (e) {
      console.log("refused: " + String((e as { class: string }).class));
    }
  },
});
`;

const h = runHarnessForSuite({ gmailToken: GMAIL_TOKEN });

const run = (source: string, options?: HarnessRun) => h.run({ source }, options);

const sentTo = () => h.gmail.sent.map((m) => m.to.join(","));

describe("runAgentProgram", () => {
  it("auto-approved: checks, gets a receipt, redeems it and runs main; the provider got the mail", async () => {
    const before = h.gmail.sent.length;
    const events: RunEvent[] = [];
    const report = await run(mail("me@example.com"), { events });
    expect(report).toMatchObject({
      outcome: "executed",
      check: { ok: true, effects: 1, guarantees: 0 },
      policy: { decision: "auto_approved", rules: ["email.to-myself"] },
      approval: { decision: "auto_approved", jti: expect.any(String) },
      execution: { outcome: "returned", calls: [{ op: "email.send_email", status: "done" }], refused: 0 },
    });
    expect(report.approval!.expires_in_s).toBeGreaterThan(200);
    expect(events.map((e) => e.type)).toEqual(["checked", "decided", "approved", "executed"]);
    expect(sentTo().slice(before)).toEqual(["me@example.com"]);
  });

  it("refused by the analysis: the diagnostics, no request, nothing runs", async () => {
    const report = await run(
      `import { program } from "countersign";\nexport default program({ rationale: "x", guarantees: [], async main() { eval("1"); } });\n`,
    );
    expect(report.outcome).toBe("refused");
    expect(report.check!.diagnostics.length).toBeGreaterThan(0);
    expect(report.request).toBeUndefined();
    expect(report.execution).toBeUndefined();
  });

  it("a program that is not UTF-8 is refused before anything is sent", async () => {
    const report = await run(new Uint8Array([0xff, 0xfe, 0x00]) as unknown as string);
    expect(report).toMatchObject({
      outcome: "refused",
      check: { ok: false, diagnostics: [{ code: "invalid_program" }] },
    });
  });

  it("hard denied: the deny rule and its reason, no receipt", async () => {
    const report = await run(
      readFileSync(join(import.meta.dirname, "../../examples/write-outside-sandbox.ts"), "utf8"),
    );
    expect(report).toMatchObject({
      outcome: "denied",
      policy: { decision: "auto_rejected", rules: ["fs.write-outside-sandbox"] },
      decision: { kind: "auto_rejected" },
    });
    expect(report.policy!.reason).toContain("Sandbox");
    expect(report.approval).toBeUndefined();
  });

  it("ask: waits for the person, then runs with their receipt", async () => {
    const before = h.gmail.sent.length;
    const events: RunEvent[] = [];
    const [report] = await Promise.all([run(mail("carol@example.com"), { events }), h.decideWhenPending()]);
    expect(report).toMatchObject({
      outcome: "executed",
      policy: { decision: "ask", rules: ["default"] },
      request: { review_url: expect.stringContaining("/requests/req_") },
      approval: { decision: "approved_once", approver: "alice" },
    });
    expect(events.map((e) => e.type).filter((t) => t !== "waiting")).toEqual([
      "checked",
      "decided",
      "approved",
      "executed",
    ]);
    expect(events.some((e) => e.type === "waiting")).toBe(true);
    expect(sentTo().slice(before)).toEqual(["carol@example.com"]);
  });

  it("rejected by the person: denied with the reason; request_more: the feedback", async () => {
    const [rejected] = await Promise.all([
      run(mail("dave@example.com")),
      h.decideWhenPending({ decision: "rejected", reason: "not Dave" }),
    ]);
    expect(rejected).toMatchObject({ outcome: "denied", decision: { kind: "rejected", reason: "not Dave" } });
    const [more] = await Promise.all([
      run(mail("erin@example.com")),
      h.decideWhenPending({ decision: "request_more", feedback: "say why" }),
    ]);
    expect(more).toMatchObject({ outcome: "request_more", decision: { kind: "request_more", feedback: "say why" } });
    expect(sentTo()).not.toContain("dave@example.com");
    expect(sentTo()).not.toContain("erin@example.com");
  });

  it("times out, as `countersign run` waits (withdrawOnGiveUp): the request is withdrawn (or expired at the authority, whose deadline is the same) and nothing runs", async () => {
    const report = await h.run({ source: mail("frank@example.com"), timeoutSeconds: 1 }, { withdrawOnGiveUp: true });
    expect(report.outcome).toBe("expired");
    const request = await h.a.call("GET", `/v1/requests/${report.request!.id}`);
    expect(["withdrawn", "expired"]).toContain(request.body.status);
    expect(report.execution).toBeUndefined();
  });

  it("aborted while waiting (Ctrl-C) with withdrawOnGiveUp: cancelled, the request withdrawn", async () => {
    const controller = new AbortController();
    const events: RunEvent[] = [];
    const running = run(mail("grace@example.com"), { signal: controller.signal, events, withdrawOnGiveUp: true });
    while (!events.some((e) => e.type === "decided")) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const report = await running;
    expect(report.outcome).toBe("cancelled");
    expect((await h.a.call("GET", `/v1/requests/${report.request!.id}`)).body.status).toBe("withdrawn");
  });

  it("by default a wait that ends, or an abort, leaves the request pending; resumed by id once approved it runs, once", async () => {
    const before = h.gmail.sent.length;
    const detached = await h.run({ source: mail("hugo@example.com"), waitSeconds: 0 });
    expect(detached).toMatchObject({
      outcome: "pending",
      policy: { decision: "ask" },
      request: { id: expect.stringMatching(/^req_/) },
    });
    const id = detached.request!.id;
    const controller = new AbortController();
    const events: RunEvent[] = [];
    const waiting = h.run({ source: mail("hugo@example.com"), resume: id }, { signal: controller.signal, events });
    while (!events.some((e) => e.type === "waiting")) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    expect((await waiting).outcome).toBe("cancelled");
    expect((await h.a.call("GET", `/v1/requests/${id}`)).body.status).toBe("pending");

    const [resumed] = await Promise.all([
      h.run({ source: mail("hugo@example.com"), resume: id }),
      h.decideWhenPending(),
    ]);
    expect(resumed).toMatchObject({
      outcome: "executed",
      request: { id },
      approval: { decision: "approved_once" },
      execution: { calls: [{ op: "email.send_email", status: "done" }] },
    });
    expect(resumed.check).toBeUndefined(); // not checked or submitted again: the request's own verdict
    const again = await h.run({ source: mail("hugo@example.com"), resume: id });
    expect(again).toMatchObject({ outcome: "invalid", error: { details: { reason: "already_run" } } });
    expect(again.execution).toBeUndefined();
    expect(h.gmail.sent.length).toBe(before + 1);
  });

  it("aborted while the program runs away in a native loop (Ctrl-C): stopped there, cancelled, the call it made reported", async () => {
    const controller = new AbortController();
    const before = h.gmail.sent.length;
    const runaway = mail("me@example.com").replace(
      `body: "From the run tests." });`,
      `body: "From the run tests." });\n    const holes: number[] = [];\n    holes[2 ** 32 - 2] = 0;\n    console.log([...holes].length);`,
    );
    let finished = false;
    const running = run(runaway, { signal: controller.signal }).finally(() => (finished = true));
    while (h.gmail.sent.length === before && !finished) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const report = await running;
    expect(report).toMatchObject({
      outcome: "cancelled",
      execution: { outcome: "limit", limit: { details: { limit: "interrupted" } } },
    });
    // The abort may land before the mail server's answer reaches the runner: the run stops at once,
    // and its report then lists the call as pending (made, its answer not awaited).
    expect(report.execution!.calls).toEqual([
      { op: "email.send_email", status: expect.stringMatching(/^(done|pending)$/) },
    ]);
    expect(h.gmail.sent.length).toBe(before + 1);
  });

  it("a guarantee enforced at run time: the call outside it is refused inside the sandbox, reported, and nothing is sent", async () => {
    const created = await fetch(`${h.gmail.url}/gmail/v1/users/me/drafts`, {
      method: "POST",
      headers: { authorization: `Bearer ${GMAIL_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        message: { raw: Buffer.from("To: mallory@evil.example\r\nSubject: hi\r\n\r\nbody").toString("base64url") },
      }),
    });
    const { id } = (await created.json()) as { id: string };
    const before = h.gmail.sent.length;
    const [report] = await Promise.all([run(forwardDraft(id)), h.decideWhenPending()]);
    expect(report).toMatchObject({
      outcome: "failed",
      check: { guarantees: 1, enforced: 1 },
      execution: {
        outcome: "returned",
        refused: 1,
        calls: [
          { op: "email.get_draft", status: "done" },
          { op: "email.send_email", status: "refused", error: { class: "grant_violation" } },
        ],
        logs: [{ text: "refused: grant_violation" }],
      },
    });
    expect(h.gmail.sent.length).toBe(before);
  });
});

describe("sandbox limits through a run", () => {
  const program = (body: string, helper = "") => `import { program } from "countersign";
${helper}
export default program({
  rationale: "Test a limit.",
  guarantees: [],
  async main() {
${body}
  },
});
`;
  const limited = (source: string, limits: RunInput["limits"]) => h.run({ source, entry: "limit.ts", limits });

  it("an endless loop, a huge allocation, runaway recursion: resource_limit_exceeded, the run failed, this process goes on", async () => {
    const loop = await limited(program("    let n = 0;\n    while (n >= 0) n++;"), { cpuMs: 300 });
    expect(loop).toMatchObject({
      outcome: "failed",
      execution: { outcome: "limit", limit: { class: "resource_limit_exceeded", details: { limit: "cpu" } } },
    });
    const grow = await limited(
      program(
        "    const a: number[][] = [];\n    for (let i = 0; i < 100000000; i++) a.push([i, i, i, i]);\n    console.log(String(a.length));",
      ),
      { memoryBytes: 32 * 1024 * 1024 },
    );
    expect(grow).toMatchObject({
      outcome: "failed",
      execution: { outcome: "limit", limit: { class: "resource_limit_exceeded" } },
    });
    expect(grow.execution!.logs).toEqual([]);
    const deep = await limited(
      program(
        "    console.log(String(deep(1)));",
        "function deep(n: number): number {\n  return n <= 0 ? 0 : 1 + deep(n + 1);\n}\n",
      ),
      {},
    );
    expect(deep).toMatchObject({
      outcome: "failed",
      execution: { outcome: "limit", limit: { class: "resource_limit_exceeded" } },
    });
    // The host is unharmed: the next run goes through.
    expect((await run(mail("me@example.com"))).outcome).toBe("executed");
  });
});

describe("receipts that must not start a run", () => {
  /** The real authority, with one answer changed on the way. */
  const tampered = (change: Partial<AuthorityClient>): AuthorityClient => ({ ...h.client, ...change });

  it("a receipt for another program: receipt_invalid (program_mismatch), nothing runs", async () => {
    const other = await h.client.submit({
      program: mail("me@example.com").replace("Hello", "Hi"),
      source_name: "other.ts",
    });
    expect(other.status).toBe("approved");
    const before = h.gmail.sent.length;
    const report = await run(mail("me@example.com"), {
      client: tampered({
        submit: async (body) => ({ ...(await h.client.submit(body)), receipt: (other as { receipt: string }).receipt }),
      }),
    });
    expect(report).toMatchObject({
      outcome: "failed",
      error: { class: "receipt_invalid", details: { reason: "program_mismatch" } },
    });
    expect(report.execution).toBeUndefined();
    expect(h.gmail.sent.length).toBe(before);
  });

  it("an expired receipt: expired, nothing runs", async () => {
    const before = h.gmail.sent.length;
    const report = await run(mail("me@example.com"), { now: () => new Date(Date.now() + 3600_000) });
    expect(report).toMatchObject({
      outcome: "expired",
      error: { class: "receipt_invalid", details: { reason: "expired" } },
    });
    expect(h.gmail.sent.length).toBe(before);
  });

  it("a receipt redeemed already: replayed, nothing runs", async () => {
    const before = h.gmail.sent.length;
    const spent = tampered({
      submit: async (body) => {
        const answer = await h.client.submit(body);
        if (answer.status === "approved") {
          const claims = JSON.parse(Buffer.from(answer.receipt.split(".")[1]!, "base64url").toString("utf8")) as {
            jti: string;
            exp: number;
          };
          await h.client.redeem(claims.jti, claims.exp);
        }
        return answer;
      },
    });
    const report = await run(mail("me@example.com"), { client: spent });
    expect(report).toMatchObject({
      outcome: "failed",
      error: { class: "receipt_invalid", details: { reason: "replayed" } },
    });
    expect(h.gmail.sent.length).toBe(before);
  });

  it("a receipt the authority never issued (signed with its key, grants for nothing): unknown to it, nothing runs", async () => {
    const keyring = await openKeyring(h.a.dataDir);
    const source = mail("me@example.com");
    const answer = await h.client.submit({ program: source, source_name: "program.ts" });
    if (answer.status !== "approved") throw new Error(`expected an auto-approval, got ${answer.status}`);
    const forged = await issueReceipt(
      {
        requestId: answer.id,
        program: {
          sha256: (await h.client.check({ program: source, source_name: "program.ts" })).facts.program.sha256,
          entry: "program.ts",
        },
        decision: "auto_approved",
        policySha256: "0".repeat(64),
        grants: [],
        across: [],
        issuer: LOCAL_ISSUER,
      },
      keyring,
    );
    const before = h.gmail.sent.length;
    const report = await run(source, {
      client: tampered({
        submit: async () => ({ id: answer.id, status: "approved", decision: answer.decision, receipt: forged }),
      }),
    });
    expect(report).toMatchObject({
      outcome: "failed",
      error: { boundary: "authority", details: { reason: "not_found" } },
    });
    expect(report.execution).toBeUndefined();
    expect(h.gmail.sent.length).toBe(before);
  });

  it("no authority answering: unavailable, saying how to start one", async () => {
    const report = await run(mail("me@example.com"), {
      client: httpAuthority({ url: "http://127.0.0.1:9", token: "x" }),
    });
    expect(report).toMatchObject({
      outcome: "unavailable",
      error: { class: "config_error", message: expect.stringContaining("countersign serve") },
    });
  });

  it("a token the authority does not know: unavailable (a configuration error), nothing submitted", async () => {
    const report = await run(mail("me@example.com"), { client: httpAuthority({ url: h.a.url, token: "not-a-token" }) });
    expect(report).toMatchObject({
      outcome: "unavailable",
      error: { class: "capability_denied", details: { reason: "unauthenticated" } },
    });
    expect(report.request).toBeUndefined();
  });
});

// `countersign run --detach`, `--resume REQ_ID` and `--withdraw REQ_ID`, in-process against a real
// authority on 127.0.0.1 (SQLite), real QuickJS and the Gmail-shaped provider on loopback: a
// request outlives the call that made it, runs once approved, exactly once, and only with the
// bytes it was made for; a person decides through the approver API as the UI does.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { EXIT_PENDING } from "../../src/cli/run.js";
import { runHarnessForSuite } from "../run/harness.js";

const h = runHarnessForSuite({ gmailToken: "run-detach-token" });
const dir = mkdtempSync(join(tmpdir(), "countersign-run-detach-"));

const mail = (to: string) => `import { program } from "countersign";
import { sendEmail } from "trusted/email";

export default program({
  rationale: "Mail ${to}.",
  guarantees: [],
  async main() {
    await sendEmail({ to: [${JSON.stringify(to)}], subject: "Hello", body: "From the detach tests." });
    console.log(${JSON.stringify(`sent to ${to}`)});
  },
});
`;

/** A program file in the test's folder; its name is what the commands are given. */
function file(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

interface Ran {
  code: number;
  out: string;
  err: string;
  json: () => Record<string, any>;
}

/** Start `countersign run ARGV` in-process; `err` reads its stderr so far. */
function start(...argv: string[]): { done: Promise<Ran>; err: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    readStdin: async () => "",
    env: { ...h.env, COUNTERSIGN_URL: h.a.url, COUNTERSIGN_TOKEN: h.a.token, COUNTERSIGN_DATABASE: "" },
    cwd: dir,
  };
  const done = main(["run", ...argv], io).then((code) => ({
    code,
    out: out.join(""),
    err: err.join(""),
    json: () => JSON.parse(out.join("")),
  }));
  return { done, err: () => err.join("") };
}

const run = (...argv: string[]): Promise<Ran> => start(...argv).done;

/** Decide one request as alice, through the approver API, with the digest of what its page showed. */
async function decide(id: string, decision: Record<string, string>): Promise<void> {
  const shown = (decision.decision ?? "").startsWith("approved")
    ? ((await h.a.call("GET", `/v1/requests/${id}/page`, { session: h.alice })).body.binding?.sha256 as
        | string
        | undefined)
    : undefined;
  const answer = await h.a.call("POST", `/v1/requests/${id}/decision`, {
    session: h.alice,
    body: shown === undefined ? decision : { ...decision, shown },
  });
  if (answer.status !== 200)
    throw new Error(`deciding ${id} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
}

const status = async (id: string) => (await h.a.call("GET", `/v1/requests/${id}`)).body.status as string;
const sentTo = (to: string) => h.gmail.sent.filter((m) => m.to.includes(to)).length;

/** Submit with --detach --json: the request id of the pending request. */
async function detached(name: string, ...flags: string[]): Promise<string> {
  const r = await run(name, "--detach", "--json", ...flags);
  expect(r.code, r.err + r.out).toBe(EXIT_PENDING);
  return r.json().request_id as string;
}

describe("countersign run --detach / --resume / --withdraw", () => {
  it("--detach: pending at once with the request id (exit 7), nothing runs; --resume --detach says pending again; approved, --resume runs it once", async () => {
    const program = file("carol.ts", mail("carol@example.com"));
    const r = await run(program, "--detach", "--json");
    expect(r.code).toBe(7);
    const pending = r.json();
    expect(pending).toMatchObject({
      outcome: "pending",
      request_id: expect.stringMatching(/^req_/),
      exit_code: 7,
      policy: { decision: "ask" },
      check: { ok: true },
    });
    expect(pending.next).toContain(`countersign run carol.ts --resume ${pending.request_id}`);
    expect(pending.execution).toBeUndefined();
    const id = pending.request_id as string;
    expect(await status(id)).toBe("pending");

    const again = await run(program, "--resume", id, "--detach");
    expect(again.code).toBe(7);
    expect(again.out).toContain(`pending: ${id}\n`);
    expect(again.err).toContain(`--resume ${id}`);
    expect(again.err).toContain(`countersign run --withdraw ${id}`);
    expect(await status(id)).toBe("pending"); // not withdrawn by a call that stopped looking
    expect(sentTo("carol@example.com")).toBe(0);

    await decide(id, { decision: "approved_once" });
    const ran = await run(program, "--resume", id, "--json");
    expect(ran.code, ran.err + ran.out).toBe(0);
    expect(ran.json()).toMatchObject({
      outcome: "executed",
      request_id: id,
      approval: { decision: "approved_once", approver: "alice" },
      execution: {
        outcome: "returned",
        logs: [{ stream: "log", text: "sent to carol@example.com" }],
        calls: [{ op: "email.send_email", status: "done" }],
      },
      exit_code: 0,
    });
    expect(sentTo("carol@example.com")).toBe(1);

    // One approval, one run.
    const twice = await run(program, "--resume", id);
    expect(twice.code).toBe(2);
    expect(twice.err).toMatch(new RegExp(`request ${id} has run already.*once`));
    const twiceJson = await run(program, "--resume", id, "--json");
    expect(twiceJson.json()).toMatchObject({
      outcome: "invalid",
      request_id: id,
      error: { class: "usage_error", details: { reason: "already_run" } },
      exit_code: 2,
    });
    expect(sentTo("carol@example.com")).toBe(1);
  });

  it("--resume with other bytes: refused before anything is spent, nothing runs; the right bytes then run", async () => {
    const program = file("dan.ts", mail("dan@example.com"));
    const id = await detached(program);
    await decide(id, { decision: "approved_once" });
    const changed = file("dan-changed.ts", mail("dan@example.com").replace("Hello", "Hi"));
    const refused = await run(changed, "--resume", id, "--json");
    expect(refused.code).toBe(2);
    expect(refused.json()).toMatchObject({
      outcome: "invalid",
      request_id: id,
      error: { class: "usage_error", details: { reason: "program_mismatch" } },
    });
    expect(refused.json().error.message).toContain(`dan-changed.ts is not the program of request ${id}`);
    expect(refused.json().execution).toBeUndefined();
    const human = await run(changed, "--resume", id);
    expect(human.code).toBe(2);
    expect(human.err).toContain("is not the program of request");
    expect(sentTo("dan@example.com")).toBe(0);

    const ran = await run(program, "--resume", id);
    expect(ran.code, ran.err).toBe(0);
    expect(sentTo("dan@example.com")).toBe(1);
  });

  it("--resume without --detach waits for the decision as a run does, then runs", async () => {
    const program = file("erin.ts", mail("erin@example.com"));
    const id = await detached(program);
    const waiting = start(program, "--resume", id);
    while (!waiting.err().includes("waiting for approval")) await new Promise((r) => setTimeout(r, 20));
    expect(waiting.err()).not.toContain("pending:");
    await decide(id, { decision: "approved_once" });
    const ran = await waiting.done;
    expect(ran.code, ran.err).toBe(0);
    expect(ran.err).toContain("log: sent to erin@example.com");
    expect(sentTo("erin@example.com")).toBe(1);
  });

  it("--resume of a rejected request: denied with the person's reason (exit 3); request_more: the feedback (exit 4)", async () => {
    const frank = file("frank.ts", mail("frank@example.com"));
    const rejected = await detached(frank);
    await decide(rejected, { decision: "rejected", reason: "not Frank" });
    const denied = await run(frank, "--resume", rejected);
    expect(denied.code).toBe(3);
    expect(denied.err).toContain("reason: not Frank");
    expect((await run(frank, "--resume", rejected, "--json")).json()).toMatchObject({
      outcome: "denied",
      request_id: rejected,
      decision: { kind: "rejected", reason: "not Frank" },
      exit_code: 3,
    });

    const gina = file("gina.ts", mail("gina@example.com"));
    const more = await detached(gina);
    await decide(more, { decision: "request_more", feedback: "say why" });
    const asked = await run(gina, "--resume", more);
    expect(asked.code).toBe(4);
    expect(asked.err).toContain("changes requested: say why");
    expect(sentTo("frank@example.com") + sentTo("gina@example.com")).toBe(0);
  });

  it("--withdraw takes a pending request back (exit 0); resuming it says it was withdrawn (exit 5); a decided one cannot be withdrawn (exit 2)", async () => {
    const program = file("hal.ts", mail("hal@example.com"));
    const id = await detached(program);
    const withdrawn = await run("--withdraw", id);
    expect(withdrawn).toMatchObject({ code: 0, out: `withdrawn: ${id}\n` });
    expect(await status(id)).toBe("withdrawn");
    const resumed = await run(program, "--resume", id);
    expect(resumed.code).toBe(5);
    expect(resumed.err).toContain(`withdrawn: request ${id} was withdrawn, nothing ran`);
    const again = await run("--withdraw", id, "--json");
    expect(again.code).toBe(2);
    expect(again.json()).toMatchObject({
      error: { class: "usage_error", message: expect.stringContaining("not pending") },
    });
    expect(sentTo("hal@example.com")).toBe(0);

    expect((await run(program, "--withdraw", id)).code).toBe(2); // --withdraw takes the id alone
  });

  it("--resume of an expired request: expired (exit 5), nothing runs", async () => {
    const program = file("ivan.ts", mail("ivan@example.com"));
    const id = await detached(program, "--timeout", "1");
    while ((await status(id)) === "pending") await new Promise((r) => setTimeout(r, 100));
    expect(await status(id)).toBe("expired");
    const resumed = await run(program, "--resume", id);
    expect(resumed.code).toBe(5);
    expect(resumed.err).toContain(`expired: no decision on ${id} before its deadline`);
    expect(sentTo("ivan@example.com")).toBe(0);
  });

  it("--resume of an unknown request, or a malformed id: exit 2 and why", async () => {
    const program = file("jo.ts", mail("jo@example.com"));
    const unknown = await run(program, "--resume", "req_nope");
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("no request req_nope");
    const malformed = await run(program, "--resume", "../x");
    expect(malformed.code).toBe(2);
    expect(malformed.err).toContain("--resume takes a request id");
  });

  it("--detach on a program the policy approves at once: it runs, as without --detach", async () => {
    const program = file("me.ts", mail("me@example.com"));
    const before = sentTo("me@example.com");
    const r = await run(program, "--detach", "--json");
    expect(r.code, r.err + r.out).toBe(0);
    expect(r.json()).toMatchObject({ outcome: "executed", policy: { decision: "auto_approved" } });
    expect(sentTo("me@example.com")).toBe(before + 1);
  });

  it("--help documents the flags and the pending exit code", async () => {
    const r = await run("--help");
    const text = r.out + r.err;
    for (const flag of ["--detach", "--resume REQ_ID", "--withdraw REQ_ID"]) expect(text).toContain(flag);
    expect(text).toMatch(/7 pending/);
  });
});

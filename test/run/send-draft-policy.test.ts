// A policy rule that auto-approves sending drafts to listed recipients, through a whole run (real
// authority on 127.0.0.1, QuickJS, the email plugin, the Gmail-shaped provider): the program shows
// only the draft's id, the decision passes it on the rule's condition carried in the grant, and
// the wrapper checks the recipients it reads from the draft against it before the send. An agent
// action gets this through a step that calls send_draft; one that declares [resolve] itself is
// refused when submitted.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SHIP_DRAFT } from "../support/agent-manifests.js";
import { runHarnessForSuite } from "./harness.js";

const POLICY = `default = "ask"

[[rules]]
id = "drafts-to-bob"
decision = "allow"
op = "email.send_draft"
when = { args = { to = { in = ["bob@example.com"] } } }
reason = "drafts to Bob may go out"
`;

/** Sends a draft someone wrote with `fn` from `module` (given its id under `input`); the program knows only the id and promises nothing. */
const sendingDraft = (module: string, fn: string, input: string) => (id: string) =>
  `import { program } from "countersign";
import { ${fn} } from "${module}";

export default program({
  rationale: "Send the draft that is waiting.",
  guarantees: [],
  async main() {
    await ${fn}({ ${input}: ${JSON.stringify(id)} });
  },
});
`;
const sendTheirDraft = sendingDraft("trusted/email", "sendDraft", "draft_id");

const h = runHarnessForSuite(() => {
  const policies = mkdtempSync(join(tmpdir(), "countersign-draft-policy-"));
  writeFileSync(join(policies, "policy.toml"), POLICY);
  return { authority: { policies } };
});
const run = (source: string) => h.run({ source });

describe("an allow rule on send_draft's recipients", () => {
  it("auto-approves the send, and the draft to Bob goes out", async () => {
    const id = h.gmail.addDraft({ to: ["bob@example.com"], subject: "Notes", body: "Here they are." });
    const before = h.gmail.sent.length;
    const report = await run(sendTheirDraft(id));
    expect(report).toMatchObject({
      outcome: "executed",
      policy: { decision: "auto_approved", rules: ["drafts-to-bob"] },
      execution: { refused: 0, calls: [{ op: "email.send_draft", status: "done" }] },
    });
    expect(report.approval?.approver).toBeUndefined();
    expect(h.gmail.sent.slice(before).map(({ via, to, subject, body }) => ({ via, to, subject, body }))).toEqual([
      { via: "draft", to: ["bob@example.com"], subject: "Notes", body: "Here they are." },
    ]);
  });

  it("a draft written in Gmail's multipart shape (text/plain beside text/html) goes out with its plain-text body", async () => {
    const id = h.gmail.addDraft({
      to: ["bob@example.com"],
      subject: "Rich",
      body: "Plain words.",
      html: "<p>Rich <b>words</b>.</p>",
    });
    const before = h.gmail.sent.length;
    const report = await run(sendTheirDraft(id));
    expect(report).toMatchObject({ outcome: "executed", policy: { decision: "auto_approved" } });
    expect(h.gmail.sent.slice(before).map(({ to, subject, body }) => ({ to, subject, body }))).toEqual([
      { to: ["bob@example.com"], subject: "Rich", body: "Plain words." },
    ]);
  });

  it("a draft to someone else: approved by the same rule, refused at the send by the wrapper, nothing sent", async () => {
    const id = h.gmail.addDraft({ to: ["bob@example.com", "mallory@evil.example"], subject: "Hi", body: "Hello." });
    const before = h.gmail.sent.length;
    const report = await run(sendTheirDraft(id));
    expect(report).toMatchObject({
      outcome: "failed",
      policy: { decision: "auto_approved" },
      execution: {
        refused: 1,
        calls: [
          {
            op: "email.send_draft",
            status: "refused",
            error: { class: "grant_violation", message: expect.stringContaining('argument "to" is outside its grant') },
          },
        ],
      },
    });
    expect(h.gmail.sent.length).toBe(before);
    expect(h.gmail.drafts.has(id)).toBe(true);
  });
});

/** The agent action ship_draft (SHIP_DRAFT: one step, the trusted send_draft), `extra` appended; and a program that calls it. */
const shipDraft = (extra = "") => ({ name: "ship_draft.toml", text: SHIP_DRAFT + extra });
const callShipDraft = sendingDraft("trusted/agent", "shipDraft", "draft");

describe("agent actions and send_draft's [resolve]", () => {
  it("an agent action whose step is send_draft: the trusted action's [resolve] reads the draft, the rule on `to` holds it at the send", async () => {
    const toBob = h.gmail.addDraft({ to: ["bob@example.com"], subject: "Notes", body: "Here they are." });
    const elsewhere = h.gmail.addDraft({ to: ["mallory@evil.example"], subject: "Hi", body: "Hello." });
    const before = h.gmail.sent.length;
    const sent = await h.run({ source: callShipDraft(toBob), manifests: [shipDraft()] });
    expect(sent).toMatchObject({
      outcome: "executed",
      policy: { decision: "auto_approved", rules: ["drafts-to-bob"] },
      execution: { calls: [{ op: "agent.ship_draft", status: "done" }] },
    });
    const refused = await h.run({ source: callShipDraft(elsewhere), manifests: [shipDraft()] });
    expect(refused).toMatchObject({
      outcome: "failed",
      policy: { decision: "auto_approved" },
      execution: {
        refused: 1,
        calls: [
          {
            op: "agent.ship_draft",
            status: "refused",
            error: { class: "grant_violation", message: expect.stringContaining('argument "to" is outside its grant') },
          },
        ],
      },
    });
    expect(h.gmail.sent.slice(before).map(({ via, to }) => ({ via, to }))).toEqual([
      { via: "draft", to: ["bob@example.com"] },
    ]);
    expect(h.gmail.drafts.has(elsewhere)).toBe(true);
  });

  it("an agent action that declares [resolve] itself: refused at submission, by the runner and by the authority, with the reason", async () => {
    const declaring = shipDraft(
      '\n[resolve]\nop = "get_draft"\nargs = { id = "${args.draft}" }\ninputs = { to = "to" }\n',
    );
    const source = callShipDraft("d-1");
    const requests = async () =>
      (await h.a.call("GET", "/v1/requests?limit=500", { session: h.alice })).body.requests.length as number;
    const stored = await requests();
    const report = await h.run({ source, manifests: [declaring] });
    expect(report).toMatchObject({
      outcome: "refused",
      error: { class: "analysis_rejected", details: { reason: "invalid_agent_manifests" } },
    });
    expect(report.error!.message).toMatch(
      /ship_draft\.toml:\d+ resolve: only a trusted action may declare \[resolve\]/,
    );
    expect(report.request).toBeUndefined();
    // A client that skips the runner's check gets the same refusal from the authority; nothing is stored.
    const submitted = await h.a.call("POST", "/v1/requests", { body: { program: source, manifests: [declaring] } });
    expect(submitted.status).toBe(422);
    expect(submitted.body.error).toMatchObject({
      class: "analysis_rejected",
      details: { reason: "invalid_agent_manifests" },
    });
    expect(submitted.body.error.message).toContain("only a trusted action may declare [resolve]");
    expect(await requests()).toBe(stored);
  });
});

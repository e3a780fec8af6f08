// fromHandle end to end: a program takes up a held value by its id; the runner asks the authority
// for it and the sandbox hands it to the program, whose calls are still admitted by the receipt.
import { describe, expect, it } from "vitest";
import { runHarnessForSuite } from "./harness.js";

const h = runHarnessForSuite();

const program = (main: string, guarantees = "[]") => `import { program, fromHandle } from "countersign";
import { sendEmail } from "trusted/email";
import { recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "Use a held value.",
  guarantees: ${guarantees},
  async main() {
${main}
  },
});
`;

async function hold(id: string, value: string, submitterToken = h.a.token): Promise<void> {
  const store = h.a.authority.state.store;
  const submitter = (await store.authenticate(submitterToken))!;
  await store.putHandles([
    { id, submitter, request_id: "req_earlier", from: ["email.get_draft"], path: "$.body", value },
  ]);
}

describe("fromHandle in a run", () => {
  it("the program gets the held value: the mail's body is the value, though the agent never saw it", async () => {
    await hold("h_body", "the draft's words, held back");
    const before = h.gmail.sent.length;
    const report = await h.run({
      source: program(
        `    const v = await fromHandle("h_body");\n    await sendEmail({ to: ["me@example.com"], subject: "s", body: String(v) });\n    return "sent";`,
      ),
    });
    expect(report).toMatchObject({
      outcome: "executed",
      execution: {
        outcome: "returned",
        value: "sent",
        calls: [
          { op: "countersign.from_handle", status: "done" },
          { op: "email.send_email", status: "done" },
        ],
      },
    });
    expect(h.gmail.sent.length).toBe(before + 1);
    expect(h.gmail.sent.at(-1)!.body).toContain("the draft's words, held back");
  });

  it("grants are checked on the substituted value: an attacker's address held as a handle is refused by recipientsOnly", async () => {
    await hold("h_to", "mallory@evil.example");
    const before = h.gmail.sent.length;
    // The recipient comes from a held value: untrusted, so the shipped policy asks a person.
    const [report] = await Promise.all([
      h.run({
        source: program(
          `    const to = String(await fromHandle("h_to"));\n    try {\n      await sendEmail({ to: [to], subject: "s", body: "b" });\n    } catch (e) {\n      console.log("refused: " + String((e as { class: string }).class));\n    }`,
          `[recipientsOnly(["bob@example.com"])]`,
        ),
      }),
      h.decideWhenPending(),
    ]);
    expect(report.policy).toMatchObject({ decision: "ask", rules: ["email.untrusted-recipients"] });
    expect(report.execution).toMatchObject({
      refused: 1,
      calls: [
        { op: "countersign.from_handle", status: "done" },
        { op: "email.send_email", status: "refused", error: { class: "grant_violation" } },
      ],
    });
    expect(h.gmail.sent.length).toBe(before);
  });

  it("another agent's handle is not given: the program is refused before anything runs, with the reason, and nothing is sent", async () => {
    const other = (await h.a.authority.state.store.addToken("another-agent")).token;
    await hold("h_theirs", "their secret", other);
    const before = h.gmail.sent.length;
    const report = await h.run({
      source: program(
        `    const v = await fromHandle("h_theirs");\n    await sendEmail({ to: ["me@example.com"], subject: "s", body: String(v) });`,
      ),
    });
    expect(report.outcome).not.toBe("executed");
    expect(report.execution).toBeUndefined();
    expect(report.error).toMatchObject({ class: "usage_error", details: { reason: "unknown_handle" } });
    expect(JSON.stringify(report)).not.toContain("their secret");
    expect(h.gmail.sent.length).toBe(before);
  });
});

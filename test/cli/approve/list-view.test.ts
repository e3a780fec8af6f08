// The terminal's list over what a real authority lists for an approver: the pending requests by
// headline, risk markers and the program's agent-chosen name; the history with each decision,
// who made it (a person, the policy, a remembered rule) and when. And the key rows at 80 columns.
import { beforeAll, describe, expect, it } from "vitest";
import { ApproverClient } from "../../../src/cli/approve/approver-client.js";
import { displayWidth } from "../../../src/cli/approve/display-width.js";
import { listLines, riskMarkers } from "../../../src/cli/approve/list-view.js";
import { rememberBody } from "../../../src/cli/approve/remember.js";
import { decisionWords, requestLines } from "../../../src/cli/approve/request-view.js";
import { DECISION_KEYS, MOVE_KEYS, READ_ONLY_KEYS } from "../../../src/cli/approve/terminal-approver.js";
import { authorityForSuite, example, warmAnalysis, type TestAuthority } from "../../authority/harness.js";
import { forwardDraft, IF_URGENT } from "../../support/forward-draft.js";

describe("the request list", () => {
  let a: TestAuthority;
  let client: ApproverClient;
  authorityForSuite("sqlite", (started) => {
    a = started;
    client = new ApproverClient({ url: a.url, dataDir: a.dataDir, approver: "alice" });
  });
  beforeAll(() => warmAnalysis(a), 120_000);

  const submit = async (program: string, name: string): Promise<{ id: string; status: string }> => {
    const answer = await a.call("POST", "/v1/requests", { body: { program, source_name: name } });
    expect([200, 202], JSON.stringify(answer.body)).toContain(answer.status);
    return answer.body;
  };

  it("shows each pending request in three rows: the headline, the risks by label, the agent-chosen name with the agent and the times", async () => {
    const notify = await submit(example("notify-team.ts"), "notify-team.ts");
    const forward = await submit(forwardDraft("r-1", IF_URGENT), "forward.ts");
    const pending = (await client.pending()).filter((r) => r.id === notify.id || r.id === forward.id);
    expect(pending.map((r) => r.id)).toEqual([forward.id, notify.id]); // newest first
    const rows = listLines(pending, 1, Date.now());
    expect(rows).toEqual([
      {
        text: expect.stringMatching(
          /^ {2}Sends between 1 and 2 emails to me@example\.com and an address read from the draft r-1/,
        ),
      },
      { text: "    DANGER: untrusted values; warning: mail to others", style: "warn" },
      {
        text: expect.stringMatching(/^ {4}forward\.ts \(agent-chosen name\) · from agent · \d+ s old, 1[45] min left$/),
        style: "dim",
      },
      { text: "> Sends 1 email to alice@example.com and bob@example.com.", style: "selected" },
      { text: "    warning: mail to others", style: "selected" },
      {
        text: expect.stringMatching(
          /^ {4}notify-team\.ts \(agent-chosen name\) · from agent · \d+ s old, 1[45] min left$/,
        ),
        style: "selected",
      },
    ]);
    expect(riskMarkers({ risks: [] })).toBe("no risk flagged");
    expect(listLines([], 0, Date.now())[0]!.text).toContain("No pending requests");
    expect(listLines([], 0, Date.now(), "history")[0]!.text).toContain("No past requests yet");
  });

  it("lists past requests with their decision, who made it and when: a person, the policy, a remembered rule", async () => {
    const auto = await submit(example("read-notes.ts"), "read-notes.ts");
    expect(auto.status).toBe("approved");
    const asked = await submit(example("notify-team.ts"), "notify-team.ts");
    await client.decide(asked.id, rememberBody("agent", "hour", await client.page(asked.id)));
    const again = await submit(example("notify-team.ts"), "notify-team.ts");
    expect(again.status).toBe("approved"); // by the rule just remembered

    const history = await client.history();
    expect(history.every((r) => r.status !== "pending")).toBe(true);
    const rowsOf = (id: string) => {
      const i = history.findIndex((r) => r.id === id);
      return listLines(history, -1, Date.now(), "history")
        .slice(i * 3, i * 3 + 3)
        .map((l) => l.text);
    };
    expect(rowsOf(auto.id)[1]).toMatch(/^ {4}approved by the policy, \d+ s ago$/);
    expect(rowsOf(asked.id)[1]).toMatch(/^ {4}approved and remembered by alice, \d+ s ago$/);
    expect(rowsOf(again.id)[0]).toBe("  Sends 1 email to alice@example.com and bob@example.com.");
    expect(rowsOf(again.id)[1]).toMatch(/^ {4}approved by a remembered rule, \d+ s ago$/);
    expect(rowsOf(again.id)[2]).toBe("    notify-team.ts (agent-chosen name) · from agent · warning: mail to others");

    // Opened, it names the rule.
    const page = await client.page(again.id);
    expect(decisionWords(page)).toMatch(/^approved by a remembered rule remembered\.email\.send_email\.[0-9a-f]{12}$/);
    expect(requestLines(page, { now: Date.now(), showSource: false })[4]).toEqual({
      text: expect.stringMatching(
        /^Decided: approved by a remembered rule remembered\.email\.send_email\.[0-9a-f]{12} at \d{4}-/,
      ),
      style: "ok",
    });
    expect(decisionWords(await client.page(auto.id))).toBe("approved by the policy");
  });

  it("keeps every key row within 80 columns, the decision keys on a row of their own", () => {
    for (const keys of [DECISION_KEYS, MOVE_KEYS, READ_ONLY_KEYS]) expect(displayWidth(keys)).toBeLessThanOrEqual(79); // the last column is never written
    for (const key of ["a approve once", "A approve", "r reject", "m request changes", "? ask"])
      expect(DECISION_KEYS).toContain(key);
    expect(MOVE_KEYS).toContain("q quit");
    expect(MOVE_KEYS).toContain("p full preview");
  });
});

// The terminal's request view over the request page a real authority serves an approver: the
// browser page's sections in its order, facts from the analysis, previews as fetched, the agent's
// words only in their own section.
import { beforeAll, describe, expect, it } from "vitest";
import { ApproverClient } from "../../../src/cli/approve/approver-client.js";
import { visibleText, type RequestPage } from "../../../src/app/index.js";
import type { Line } from "../../../src/cli/approve/lines.js";
import { cannotRemember, rememberBody, rememberLines } from "../../../src/cli/approve/remember.js";
import { PREVIEW_LINES, requestLines } from "../../../src/cli/approve/request-view.js";
import { authorityForSuite, example, warmAnalysis, type TestAuthority } from "../../authority/harness.js";
import { forwardDraft, FROM_THE_DRAFT, IF_URGENT } from "../../support/forward-draft.js";

const HOSTILE = "Trust me.\n\u001b[32mproven\u001b[0m everything is safe \u202Egnp.exe\n── Verified facts";

describe("the request view", () => {
  let a: TestAuthority;
  let client: ApproverClient;
  authorityForSuite("sqlite", (started) => {
    a = started;
    client = new ApproverClient({ url: a.url, dataDir: a.dataDir, approver: "alice" });
  });
  beforeAll(() => warmAnalysis(a), 120_000);

  const submit = async (name: string, rationale?: string): Promise<RequestPage> => {
    const answer = await a.call("POST", "/v1/requests", {
      body: { program: example(name), source_name: name, ...(rationale === undefined ? {} : { rationale }) },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    return client.page(answer.body.id);
  };
  const submitProgram = async (program: string): Promise<RequestPage> => {
    const answer = await a.call("POST", "/v1/requests", { body: { program, source_name: "forward.ts" } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    return client.page(answer.body.id);
  };
  const texts = (lines: Line[]) => lines.map((l) => l.text);
  const at = (lines: Line[], prefix: string) => texts(lines).findIndex((t) => t.startsWith(prefix));

  it("opens with what a person decides on: the headline, the verdict, the risks in words; then the sections in the browser page's order", async () => {
    const view = await submit("notify-team.ts", "Please send it today.");
    const lines = requestLines(view, { now: Date.now(), showSource: false });
    expect(lines.slice(0, 8)).toEqual([
      {
        text: expect.stringMatching(
          new RegExp(`^Request ${view.id} · from agent agent · \\d+ s old · 1[45] min left$`),
        ),
        style: "title",
      },
      { text: "Program notify-team.ts (agent-chosen name)", style: "dim" },
      { text: "" },
      { text: "Sends 1 email to alice@example.com and bob@example.com.", style: "title" },
      {
        text: "Verdict: needs your decision — 1 of 1 call needs a person: email.send_email at line 12 (why: under Policy rulings)",
      },
      { text: "warning: Sends email to other people: 1 email." },
      { text: "The full detail follows (Space: next page); decide with the keys at the bottom.", style: "dim" },
      { text: "" },
    ]);
    const order = [
      "── Policy rulings",
      "── Verified facts",
      "── Trusted calls",
      "── Preview",
      "── The agent's words",
      "── Source",
    ].map((h) => at(lines, h));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    expect(texts(lines).join("\n")).not.toContain(view.verdict.reason); // the reason is the rulings over again: said once, under Policy rulings
    expect(texts(lines)).toContain(
      "  email.send_email at line 12: ask by the policy default or an approval floor — no rule covers it; the policy default is ask",
    );
    expect(texts(lines)).toContain(
      `  ${"proven".padEnd(22)} recipientsOnly(TEAM) — every to is in [alice@example.com, bob@example.com]`,
    );
    expect(texts(lines)).toContain("  email.send_email at line 12, 1 call");
    expect(texts(lines)).toContain('      to = ["alice@example.com","bob@example.com"]');
    expect(texts(lines)).toContain("  No preview for this request.");
  });

  it("shows each preview's fields, a multiline one as an indented block under its own gutter, and an unavailable one as given", async () => {
    const page = await submit("notify-team.ts");
    const previews: RequestPage["previews"] = [
      {
        op: "email.send_draft",
        line: 12,
        fields: [
          { label: "To", value: "carol@example.net", multiline: false },
          { label: "Body", value: "Salary table:\n── Verified facts\n", multiline: true },
        ],
      },
      { op: "email.send_draft", line: 14, unavailable: "Preview unavailable: the provider did not answer in time" },
    ];
    const lines = requestLines({ ...page, previews }, { now: Date.now(), showSource: false });
    const start = at(lines, "── Preview");
    expect(lines.slice(start + 1, at(lines, "── The agent's words") - 1)).toEqual([
      { text: "  email.send_draft at line 12:" },
      { text: "      To: carol@example.net" },
      { text: "      Body:" },
      { gutter: "        │ ", text: "Salary table:" },
      { gutter: "        │ ", text: "── Verified facts" },
      {
        text: "  email.send_draft at line 14: Preview unavailable: the provider did not answer in time",
        style: "warn",
      },
    ]);
    expect(texts(requestLines({ ...page, previews: [] }, { now: Date.now(), showSource: false }))).toContain(
      "  No preview for this request.",
    );
  });

  it("keeps the agent's words in their own section, every line under the agent's gutter, and nowhere else", async () => {
    const view = await submit("notify-team.ts", HOSTILE);
    const lines = requestLines(view, { now: Date.now(), showSource: false });
    const start = at(lines, "── The agent's words");
    const said = lines.filter((l) => l.style === "agent");
    // The page made the controls visible already; the screen's own neutraliser is the last step on top.
    expect(said.map((l) => l.text)).toEqual([
      "Tell the team the weekly report is ready.",
      ...visibleText(HOSTILE).split("\n"),
    ]);
    expect(texts(lines)[texts(lines).indexOf("Tell the team the weekly report is ready.") + 1]).toBe(
      "  Sent with the request:",
    );
    for (const l of said) expect(l.gutter).toBe("  │ ");
    for (const [i, l] of lines.entries()) {
      if (l.style !== "agent") expect(l.text).not.toMatch(/Trust me|everything is safe|weekly report is ready\./);
      else expect(i).toBeGreaterThan(start);
    }
  });

  it("marks unknown arguments and run-time enforcement as such, never as proven", async () => {
    const view = await submit("draft-and-send.ts");
    const lines = texts(requestLines(view, { now: Date.now(), showSource: false }));
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}enforced at run time +recipientsOnly\(\["bob@example.com"\]\) — /),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^ {2}${"unknown".padEnd(22)} draft_id of email\\.send_draft is unknown .* — the analysis cannot bound this value \\(line 16\\)$`,
        ),
      ),
    );
    expect(lines).toContain(
      `  ${"enforced at run time".padEnd(22)} every to of email.* is in [bob@example.com] — a deny rule could not be ruled out statically: every call is checked against it`,
    );
    expect(lines.filter((l) => l.startsWith("  proven "))).toEqual([
      `  ${"proven".padEnd(22)} atMostEmails(1) — at most 1 email.send_* call (bound 1)`,
    ]);
  });

  it("collapses the source by default; v shows it with line numbers and each trusted call's line marked", async () => {
    const view = await submit("notify-team.ts");
    const hidden = requestLines(view, { now: Date.now(), showSource: false });
    expect(hidden.at(-1)!.text).toBe(
      `── Source: notify-team.ts (agent-chosen name), 18 lines, sha256 ${view.program_sha256} (v: show)`,
    );
    expect(texts(hidden).join("\n")).not.toContain("import { program }");
    const shown = requestLines(view, { now: Date.now(), showSource: true });
    const source = shown.slice(at(shown, "── Source") + 1);
    expect(source).toHaveLength(18);
    expect(source[1]).toEqual({ gutter: "  2 │ ", text: 'import { program } from "countersign";' });
    expect(source[11]).toEqual({ gutter: "▶12 │ ", text: "    await sendEmail({", style: "mark" });
    expect(source.filter((l) => l.gutter!.startsWith("▶"))).toHaveLength(1);
  });

  it("numbers source lines as the analysis does: a line or paragraph separator or a lone CR cannot move the ▶ off the call", async () => {
    const program = example("notify-team.ts").replace(
      "import { program }",
      "/* one\u2028two\u2029three\rfour */\nimport { program }",
    );
    const answer = await a.call("POST", "/v1/requests", { body: { program, source_name: "moved.ts" } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    const view = await client.page(answer.body.id);
    const line = view.calls[0]!.line;
    expect(line).toBe(16);
    const shown = requestLines(view, { now: Date.now(), showSource: true });
    const marked = shown.filter((l) => l.gutter?.startsWith("▶"));
    expect(marked).toEqual([{ gutter: `▶${line} │ `, text: "    await sendEmail({", style: "mark" }]);
  });

  it("shows a decision with who made it and the reason, in place of the verdict", async () => {
    const view = await submit("notify-team.ts");
    await client.decide(view.id, { decision: "rejected", reason: "not this week" });
    const lines = requestLines(await client.page(view.id), { now: Date.now(), showSource: false });
    expect(texts(lines)[0]).toMatch(/ · rejected$/);
    expect(lines[4]).toEqual({ text: expect.stringMatching(/^Decided: rejected by alice at \d{4}-/), style: "warn" });
    expect(lines[5]!.text).toBe("  reason: not this week");
    expect(texts(lines).filter((t) => t.startsWith("Verdict:"))).toEqual([]);
  });

  it("approve and remember: the exact rules and what else they let through, or why nothing can be remembered", async () => {
    const pinned = await submit("notify-team.ts");
    expect(cannotRemember(pinned)).toBeUndefined();
    const shown = rememberLines(pinned);
    expect(shown[1]!.text).toMatch(
      /^ {2}remembered\.email\.send_email\.[0-9a-f]{12}: allow every to of email\.send_email is in \[alice@example.com, bob@example.com\]; .*at most 1 call of email\.send_email$/,
    );
    const saved = shown.filter((l) => l.gutter === "    │ ");
    expect(JSON.parse(saved.map((l) => l.text).join("\n"))).toMatchObject({
      id: `remembered.email.send_email.${pinned.program_sha256.slice(0, 12)}`,
      decision: "allow",
      op: "email.send_email",
    });
    expect(shown[2]!.text).toMatch(
      /^ {2}What else it lets through: Any later program, not only this one, whose email\.send_email calls all fit this/,
    );
    expect(shown[3]).toEqual({ text: "  As saved:", style: "dim" });

    const unpinned = await submit("draft-and-send.ts");
    expect(cannotRemember(unpinned)?.join("\n")).toMatch(
      /^email\.send_draft: draft_id is .*: only a finite set of constants can be remembered without allowing more$/m,
    );
    expect(texts(rememberLines(unpinned))[0]).toBe("This approval cannot be remembered (approve once instead):");

    await client.decide(pinned.id, { decision: "approved_once" });
    expect(cannotRemember(await client.page(pinned.id))).toEqual(["the request no longer waits for a decision"]);
  });

  it("sends a remembered approval with exactly the scope and lifetime chosen", () => {
    expect(rememberBody("agent", "hour")).toEqual({ decision: "approved_remember", scope: "token", lifetime: "hour" });
    expect(rememberBody("agent", "forever")).toEqual({
      decision: "approved_remember",
      scope: "token",
      lifetime: "forever",
    });
    expect(rememberBody("everyone", "day")).toEqual({
      decision: "approved_remember",
      scope: "everyone",
      lifetime: "day",
    });
  });

  it("shows under each argument where it comes from, and what steers the call, untrusted ones as warnings (the injection of issue 15)", async () => {
    const lines = requestLines(await submitProgram(forwardDraft("r-1", IF_URGENT)), {
      now: Date.now(),
      showSource: false,
    });
    const send = at(lines, "  email.send_email at line 10,");
    expect(lines.slice(send, send + 7)).toEqual([
      { text: "  email.send_email at line 10, 1 call" },
      { text: "      to is unknown (from the result of email.get_draft, field $.body — untrusted)" },
      { text: `        comes from ${FROM_THE_DRAFT}`, style: "warn" },
      { text: '      subject = "Fwd"' },
      { text: "      body is any string (from the result of email.get_draft, field $.body — untrusted)" },
      { text: `        comes from ${FROM_THE_DRAFT}`, style: "warn" },
      {
        text: `      steered by data: whether it runs, how often and with which values may depend on ${FROM_THE_DRAFT}`,
        style: "warn",
      },
    ]);
    const urgent = at(lines, "  email.send_email at line 11,");
    expect(texts(lines.slice(urgent + 1, urgent + 5))).toEqual([
      '      to = ["me@example.com"]',
      '      subject = "Urgent"',
      '      body = "see the draft"',
      `      steered by data: whether it runs, how often and with which values may depend on ${FROM_THE_DRAFT}`,
    ]);
    // The draft read: its id is the program's own, and nothing steers it.
    const read = at(lines, "  email.get_draft at line 7,");
    expect(texts(lines.slice(read + 1, read + 3))).toEqual([
      '      id = "r-1"',
      "  email.send_email at line 10, 1 call",
    ]);
  });

  it("ranks the risks before the detail, danger first, said in words as well as in the warn style", async () => {
    const lines = requestLines(await submitProgram(forwardDraft("r-1", IF_URGENT)), {
      now: Date.now(),
      showSource: false,
    });
    const danger = at(lines, "DANGER: ");
    const warning = at(lines, "warning: ");
    expect(lines[danger]).toEqual({
      text: "DANGER: Third-party content chooses values it passes: the draft r-1 chooses the to and body of email.send_email.",
      style: "warn",
    });
    expect(lines[warning]).toEqual({ text: "warning: Sends email to other people: between 1 and 2 emails." });
    expect(danger).toBeGreaterThan(at(lines, "Verdict: "));
    expect(warning).toBeGreaterThan(danger);
    expect(at(lines, "── Policy rulings")).toBeGreaterThan(warning);
  });

  it("says a value the program's own earlier call made is that, not untrusted and not a warning", async () => {
    const lines = requestLines(await submit("draft-and-send.ts"), { now: Date.now(), showSource: false });
    const send = at(lines, "  email.send_draft at line 16,");
    expect(lines.slice(send, send + 4)).toEqual([
      { text: "  email.send_draft at line 16, 1 call" },
      {
        text: "      draft_id is unknown (from what its own email.draft_email call made (line 10), not third-party content)",
      },
      { text: "        comes from what its own email.draft_email call made (line 10), not third-party content" },
      {
        text: "      steered by data: whether it runs, how often and with which values may depend on what its own email.draft_email call made (line 10), not third-party content",
      },
    ]);
  });

  it('writes no markup backticks and never "1 calls" in its own sentences', async () => {
    for (const page of [
      await submit("notify-team.ts"),
      await submit("draft-and-send.ts"),
      await submitProgram(forwardDraft("r-1", IF_URGENT)),
    ]) {
      const own = [...requestLines(page, { now: Date.now(), showSource: false }), ...rememberLines(page)].filter(
        (l) => l.style !== "agent",
      );
      expect(own.filter((l) => l.text.includes("`") || /(^|[^\d.])1 calls\b/.test(l.text))).toEqual([]);
    }
  });

  it("cuts a long multiline preview field after PREVIEW_LINES lines with how many more, and shows it whole when asked", async () => {
    const page = await submit("notify-team.ts");
    const body = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n");
    const preview = (value: string): RequestPage["previews"] => [
      { op: "email.send_draft", line: 8, fields: [{ label: "Body", value, multiline: true }] },
    ];
    const blockOf = (lines: Line[]) => lines.slice(at(lines, "      Body:") + 1, at(lines, "── The agent's words") - 1);
    const cut = blockOf(requestLines({ ...page, previews: preview(body) }, { now: Date.now(), showSource: false }));
    expect(cut).toHaveLength(PREVIEW_LINES + 1);
    expect(cut.slice(0, PREVIEW_LINES).map((l) => l.text)).toEqual(body.split("\n").slice(0, PREVIEW_LINES));
    expect(cut.at(-1)).toEqual({ text: `        … ${30 - PREVIEW_LINES} more lines (p: show all)`, style: "dim" });
    const whole = blockOf(
      requestLines({ ...page, previews: preview(body) }, { now: Date.now(), showSource: false, fullPreviews: true }),
    );
    expect(whole.slice(0, 30).map((l) => l.text)).toEqual(body.split("\n"));
    expect(whole.at(-1)).toEqual({ text: "        (all 30 lines shown; p: fold)", style: "dim" });
    // One line over the limit is shown rather than announced as "1 more line".
    const short = Array.from({ length: PREVIEW_LINES + 1 }, (_, i) => `row ${i}`).join("\n");
    expect(
      blockOf(requestLines({ ...page, previews: preview(short) }, { now: Date.now(), showSource: false })).map(
        (l) => l.text,
      ),
    ).toEqual(short.split("\n"));
  });

  it("shows a question's answer near the top, above the detail, saying nothing went to the agent", async () => {
    const page = await submit("notify-team.ts");
    const lines = requestLines(page, {
      now: Date.now(),
      showSource: false,
      answer: { question: "Who will be emailed?", lines: ["alice@example.com and bob@example.com"] },
    });
    const asked = at(lines, "── Your question: Who will be emailed?");
    expect(asked).toBeGreaterThan(at(lines, "warning: "));
    expect(asked).toBeLessThan(at(lines, "── Policy rulings"));
    expect(texts(lines.slice(asked + 1, asked + 3))).toEqual([
      "  alice@example.com and bob@example.com",
      "  (answered here from the facts: nothing was sent to the agent, the request still waits)",
    ]);
  });
});

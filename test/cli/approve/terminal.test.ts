// The terminal approver end to end: `countersign approve` in a real pseudo-terminal (tmux),
// driven by keys as a person types them, against a real authority; what the screen shows and
// what the API answers afterwards.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startGmailServer, type GmailServer } from "../../../examples/gmail-server/gmail-server.js";
import { DECISION_KEYS, MOVE_KEYS, READ_ONLY_KEYS } from "../../../src/cli/approve/terminal-approver.js";
import { packageRoot } from "../../../src/model/paths.js";
import { openStore } from "../../../src/store/index.js";
import {
  authorityForSuite,
  example,
  warmAnalysis,
  type ApproverSession,
  type TestAuthority,
} from "../../authority/harness.js";
import { forwardDraft, FROM_THE_DRAFT, IF_URGENT } from "../../support/forward-draft.js";
import { Tmux } from "./tmux.js";

const BIN = fileURLToPath(new URL("../../../src/cli/bin.ts", import.meta.url));
/** A program that sends one draft: its preview is the draft as the provider holds it now. */
const sendDraft = (id: string) => `import { program } from "countersign";
import { sendDraft } from "trusted/email";

export default program({
  rationale: "Send the prepared draft.",
  guarantees: [],
  async main() {
    await sendDraft({ draft_id: ${JSON.stringify(id)} });
  },
});
`;
const HOSTILE = "Looks fine.\u001b]2;PWNED\u0007\u001b[2J\u001b[H\u001b[32m proven \u001b[0m\u202Eevil";

describe("countersign approve in a terminal", () => {
  let a: TestAuthority;
  let bob: ApproverSession;
  authorityForSuite("sqlite", (started) => (a = started));
  beforeAll(() => warmAnalysis(a), 120_000);

  const terminals: Tmux[] = [];
  afterEach(() => {
    for (const t of terminals.splice(0)) t.kill();
  });

  async function approve(height = 50, width = 120): Promise<Tmux> {
    const t = new Tmux();
    terminals.push(t);
    // A valid submitter token in the environment: the authority refuses it on approver routes, so this works only if it stays unused.
    const env = {
      HOME: a.dataDir,
      COUNTERSIGN_HOME: a.dataDir,
      COUNTERSIGN_TOKEN: a.token,
      PATH: process.env.PATH ?? "",
    };
    t.start([process.execPath, "--import", "tsx", BIN, "approve", "--as", "alice"], {
      env,
      cwd: packageRoot,
      height,
      width,
    });
    await t.waitForText("· live", 150_000); // tsx compiles the CLI first: slow on a loaded machine
    return t;
  }

  const submitProgram = async (program: string, sourceName: string, rationale?: string): Promise<string> => {
    const answer = await a.call("POST", "/v1/requests", {
      body: { program, source_name: sourceName, ...(rationale === undefined ? {} : { rationale }) },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    return answer.body.id;
  };
  const submit = (name: string, rationale?: string): Promise<string> => submitProgram(example(name), name, rationale);
  const decision = async (id: string) =>
    (await a.call("GET", `/v1/requests/${id}`, { session: (bob ??= await a.login("bob")) })).body;
  const pendingCount = (n: number) => `· ${n} pending ·`;
  /** The list with a request under the cursor. */
  const listed = (t: Tmux) => t.waitFor((s) => /^> /m.test(s), "a request under the cursor");
  const opened = (id: string) => `Request ${id} · from agent agent`;

  it("approves once, rejects with a reason and asks for changes, each from its key, then quits", async () => {
    const ids = [await submit("notify-team.ts"), await submit("notify-team.ts"), await submit("draft-and-send.ts")];
    const t = await approve();
    await t.waitForText(pendingCount(3));
    // Newest first: the cursor starts on the last one submitted; j and k move it.
    expect(
      t
        .screen()
        .split("\n")
        .filter((r) => r.startsWith(">")),
    ).toHaveLength(1);
    t.keys("j", "j", "k");
    t.keys("Enter");
    await t.waitForText(opened(ids[1]!));
    t.keys("a");
    await t.waitForText("Approved once.");
    expect(await decision(ids[1]!)).toMatchObject({
      status: "approved",
      decision: { kind: "approved_once", approver: "alice" },
    });
    expect(t.screen()).toContain("Decided: approved once by alice at ");

    t.keys("Escape");
    await t.waitForText(pendingCount(2));
    t.keys("k", "Enter");
    await t.waitForText(opened(ids[2]!));
    t.keys("r");
    await t.waitForText("Reason for rejecting (sent to the agent) · Enter send · Esc cancel");
    await t.waitForText("\n> _");
    t.type("too many recipientz");
    t.keys("BSpace", "s", "Enter");
    await t.waitForText("Rejected.");
    expect(await decision(ids[2]!)).toMatchObject({
      status: "rejected",
      decision: { kind: "rejected", approver: "alice", reason: "too many recipients" },
    });

    t.keys("Escape");
    await t.waitForText(pendingCount(1));
    t.keys("Enter");
    await t.waitForText(opened(ids[0]!));
    t.keys("m");
    await t.waitForText("Changes for the agent (ends the request) · Enter send · Esc cancel");
    t.keys("Enter"); // nothing typed: not sent
    await t.waitForText("this needs some text (Esc cancels)");
    t.type("send it to alice only");
    t.keys("Enter");
    await t.waitForText("Send to the agent as a request for changes (ends the request)?  y send · n no");
    expect(await decision(ids[0]!)).toMatchObject({ status: "pending" }); // not before the yes
    t.keys("y");
    await t.waitForText("Sent to the agent as a request for changes; the request has ended.");
    expect(await decision(ids[0]!)).toMatchObject({
      status: "request_more",
      decision: { kind: "request_more", approver: "alice", feedback: "send it to alice only" },
    });

    t.keys("q");
    expect(await t.exitStatus()).toBe("0");
    expect(t.screen()).not.toContain("countersign approve ·"); // the terminal given back: nothing drawn after quitting
  }, 300_000);

  it("shows new requests and decisions made elsewhere live, and hostile agent text as inert text", async () => {
    const t = await approve(40);
    const before = Number(/· (\d+) pending ·/.exec(t.screen())![1]);
    const id = await submit("notify-team.ts", HOSTILE);
    await t.waitForText(pendingCount(before + 1));
    t.keys("Enter");
    const screen = await t.waitForText("evil");
    const rows = screen.split("\n");
    expect(rows[0]).toMatch(new RegExp(`^${opened(id)}`));
    expect(rows).toContain(
      "  │ Looks fine.⟨U+001B⟩]2;PWNED⟨U+0007⟩⟨U+001B⟩[2J⟨U+001B⟩[H⟨U+001B⟩[32m proven ⟨U+001B⟩[0m⟨U+202E⟩evil",
    );
    expect(t.format("#{pane_title}")).not.toContain("PWNED");

    t.keys("v", "G"); // the end: the source's last line at the bottom, the header scrolled away
    await t.waitFor(
      (s) => s.includes("▶12 │     await sendEmail({") && s.includes("18 │ });") && !s.startsWith("Request "),
      "the view scrolled to its end",
    );
    t.keys("g");
    await t.waitFor((s) => s.startsWith(`Request ${id}`), "the view back at its top");

    const other = await a.login("bob");
    expect(
      (await a.call("POST", `/v1/requests/${id}/decision`, { session: other, body: { decision: "approved_once" } }))
        .status,
    ).toBe(200);
    await t.waitForText("Decided: approved once by bob at ");
    t.keys("a");
    await t.waitForText("this request is already approved_once: no second decision");
    t.keys("Escape");
    await t.waitForText(pendingCount(before));
  }, 300_000);

  it("shows where a forwarded draft's recipients come from: the draft, untrusted; and that the draft steers another mail (issue 15)", async () => {
    const id = await submitProgram(forwardDraft("r-1", IF_URGENT), "forward.ts");
    const t = await approve(70);
    await listed(t);
    t.keys("Enter");
    await t.waitForText(`Request ${id}`);
    const rows = (await t.waitForText("  email.send_email at line 11, 0..1 calls", 30_000)).split("\n");
    const send = rows.indexOf("  email.send_email at line 10, 1 call");
    expect(send).toBeGreaterThan(0);
    expect(rows.slice(send + 1, send + 3)).toEqual([
      "      to is unknown (from the result of email.get_draft, field $.body — untrusted)",
      `        comes from ${FROM_THE_DRAFT}`,
    ]);
    // Wrapped to the terminal's width: read as one text.
    const text = rows.join(" ").replace(/\s+/g, " ");
    const steered = `steered by data: whether it runs, how often and with which values may depend on ${FROM_THE_DRAFT}`;
    expect(text.split(steered)).toHaveLength(3); // the forward, and the mail sent only if the draft says "urgent"
  }, 300_000);

  it("approve and remember shows the rule, asks who and how long, and saves it for exactly that", async () => {
    const id = await submit("notify-team.ts");
    const t = await approve();
    await listed(t);
    t.keys("Enter");
    await t.waitForText(`Request ${id}`);
    t.keys("A");
    await t.waitForText("Who may it let through?  1 this agent only (agent) · 2 every agent · Esc cancel");
    expect(t.screen()).toMatch(
      /remembered\.email\.send_email\.[0-9a-f]{12}: allow every to of email\.send_email is in/,
    );
    expect(t.screen()).toContain("What else it lets through:");
    t.keys("1");
    await t.waitForText("For how long?  1 one hour · 2 one day · 3 until removed · Esc cancel");
    t.keys("1");
    await t.waitForText("Save for this agent only (agent agent), one hour, and approve?  y yes · n no");
    t.keys("y");
    await t.waitForText("Approved; the rules are remembered for this agent only, one hour.");
    const decided = await decision(id);
    expect(decided).toMatchObject({ status: "approved", decision: { kind: "approved_remember", approver: "alice" } });
    // Saved for exactly what was chosen: this agent's token, one hour from now.
    const store = await openStore({ dataDir: a.dataDir, database: a.database });
    try {
      const saved = (await store.listRememberedRules()).filter((r) => r.request_id === id);
      expect(saved).toHaveLength(1);
      expect(saved[0]).toMatchObject({ op: "email.send_email", token: "agent" });
      expect(saved[0]!.expires_at! - Date.now()).toBeGreaterThan(50 * 60_000);
      expect(saved[0]!.expires_at! - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    } finally {
      await store.close();
    }
  }, 300_000);

  it("shows the previews the authority fetched for this showing: a draft's fields, its body as an indented block, or why there is none", async () => {
    const providerToken = "provider-secret-token";
    const gmail: GmailServer = await startGmailServer({ token: providerToken });
    try {
      writeFileSync(join(a.dataDir, "provider.token"), `${providerToken}\n`);
      writeFileSync(
        join(a.dataDir, "connections.toml"),
        `[email]\nbase_url = "${gmail.url}"\ntoken_file = "${join(a.dataDir, "provider.token")}"\n`,
      );
      const raw = Buffer.from(
        "To: carol.preview@example.net\r\nSubject: Board minutes 7Q2X\r\n\r\nSalary table:\nrow 91873\n",
      ).toString("base64url");
      const made = await fetch(`${gmail.url}/gmail/v1/users/me/drafts`, {
        method: "POST",
        headers: { authorization: `Bearer ${providerToken}`, "content-type": "application/json" },
        body: JSON.stringify({ message: { raw } }),
      });
      const draftId = ((await made.json()) as { id: string }).id;
      const missing = await submitProgram(sendDraft("r-no-such-draft"), "send-draft.ts");
      const id = await submitProgram(sendDraft(draftId), "send-draft.ts");

      const t = await approve();
      await listed(t);
      t.keys("Enter"); // newest first: the draft that exists
      await t.waitForText(`Request ${id}`);
      const screen = await t.waitForText("        │ row 91873");
      const rows = screen.split("\n");
      const at = rows.indexOf("── Preview (fetched from the provider for this showing)");
      expect(at).toBeGreaterThan(0);
      expect(rows.slice(at + 1, at + 7)).toEqual([
        "  email.send_draft at line 8:",
        "      To: carol.preview@example.net",
        "      Subject: Board minutes 7Q2X",
        "      Body:",
        "        │ Salary table:",
        "        │ row 91873",
      ]);
      expect(gmail.sent).toEqual([]); // showing a preview sends nothing
      t.keys("Escape"); // alone: Escape then j at once reads as Alt-j
      await listed(t);
      t.keys("j", "Enter");
      await t.waitForText(`Request ${missing}`);
      await t.waitFor(
        (s) => /^ {2}email\.send_draft at line 8: Preview unavailable: \S/m.test(s),
        "the preview unavailable, with why",
      );
      t.keys("a"); // a danger flagged: asked again first
      await t.waitForText("Approve once anyway?  y approve · n no");
      t.keys("y"); // a draft nobody could see cannot be bound: the approval is refused, the request still waits
      await t.waitForText("not decided:");
      expect(await decision(missing)).toMatchObject({ status: "pending" });

      t.keys("Escape");
      await listed(t);
      t.keys("k", "Enter");
      await t.waitForText(`Request ${id}`);
      await t.waitForText("── What approving binds");
      t.keys("a"); // the approval sends the digest of the draft shown: bound, approved
      await t.waitForText("Approved once.");
      expect(await decision(id)).toMatchObject({ status: "approved", decision: { kind: "approved_once" } });
    } finally {
      await gmail.close();
    }
  }, 300_000);

  // A person at an 80x24 terminal: what the first screen of a request shows, and each new screen.
  describe("at 80x24", () => {
    const small = () => approve(24, 80);
    const rowsOf = (screen: string) => screen.replace(/\n$/, "").split("\n");
    /** A request that asks a person: notify-team.ts with a subject of its own, so no rule remembered by another test covers it. */
    const asking = (subject: string) =>
      submitProgram(example("notify-team.ts").replace("Weekly report ready", subject), "notify-team.ts");
    /** Page down (Space) until the screen shows `text`, or fail at the end of the view. */
    const scrollTo = async (t: Tmux, text: string): Promise<string> => {
      for (let page = 0; page < 40; page++) {
        const screen = t.screen();
        if (screen.includes(text)) return screen;
        t.keys("Space");
        await t.waitFor((s) => s !== screen || s.includes(text), "the view to move", 5_000).catch(() => undefined); // at the end it stays put
      }
      throw new Error(`never scrolled to ${JSON.stringify(text)}; the screen shows:\n${t.screen()}`);
    };

    it("opens a request with the headline, the verdict, the danger in words and every decision key on the first screen", async () => {
      const id = await submitProgram(forwardDraft("r-1", IF_URGENT), "forward.ts");
      const t = await small();
      await listed(t);
      const list = rowsOf(t.screen());
      expect(list[2]).toMatch(/^> Sends between 1 and 2 emails to me@example\.com and an address read from the\b.*…$/); // cut to fit 80 columns
      expect(Array.from(list[2]!).length).toBeLessThanOrEqual(80);
      expect(list[3]).toBe("    DANGER: untrusted values; warning: mail to others");
      expect(list[4]).toMatch(/^ {4}forward\.ts \(agent-chosen name\) · from agent · /);
      t.keys("Enter");
      const screen = await t.waitForText("DANGER: Third-party content chooses values");
      const rows = rowsOf(screen);
      expect(rows).toHaveLength(24);
      expect(rows[0]).toMatch(new RegExp(`^Request ${id} · from agent agent · \\d+ s old · 1[45] min left$`));
      expect(rows[1]).toBe("Program forward.ts (agent-chosen name)");
      expect(`${rows[3]} ${rows[4]}`).toMatch(
        /^Sends between 1 and 2 emails to me@example\.com and an address read from the draft r-1/,
      ); // wrapped, not cut
      expect(screen).toContain("Verdict: needs your decision — 1 of 3 calls need a person:"); // the mail to me@example.com goes only to the user: not asked
      expect(screen).toContain("warning: Sends email to other people: between 1 and 2 emails.");
      // The keys on the last two rows, whole at 80 columns: every decision, and quitting.
      expect(rows.slice(22)).toEqual([DECISION_KEYS, MOVE_KEYS]);
      for (const key of ["a approve once", "A approve+remember", "r reject", "m request changes", "? ask", "q quit"])
        expect(screen).toContain(key);
      expect(screen).not.toContain("`");
    }, 300_000);

    it("answers a question here: the answer near the top, the request still pending", async () => {
      const id = await asking("Question time");
      const t = await small();
      await listed(t);
      t.keys("Enter");
      await t.waitForText(opened(id));
      t.keys("?");
      await t.waitForText("Question, answered here from the facts · Enter send · Esc cancel");
      t.type("Who will be emailed?");
      t.keys("Enter");
      const screen = await t.waitForText("── Your question: Who will be emailed?");
      expect(screen).toContain("Answered here from the facts; nothing was sent, the request still waits.");
      const rows = rowsOf(screen);
      const asked = rows.indexOf("── Your question: Who will be emailed?");
      expect(asked).toBeGreaterThan(3);
      expect(rows.slice(asked + 1, 22).join("\n")).toContain("alice@example.com");
      expect(rows.slice(22)).toEqual([DECISION_KEYS, MOVE_KEYS]); // still deciding
      expect(await decision(id)).toMatchObject({ status: "pending", decision: null });
    }, 300_000);

    it("never ends a request with text it cannot answer: says it would go to the agent and ends the request, and sends only after y", async () => {
      const id = await asking("Not a question");
      const t = await small();
      await listed(t);
      t.keys("Enter");
      await t.waitForText(opened(id));
      t.keys("?");
      await t.waitForText("Question, answered here from the facts");
      t.type("please use bcc instead");
      t.keys("Enter");
      const screen = await t.waitForText(
        "Send to the agent as a request for changes (ends the request)?  y send · n no",
      );
      const text = screen.replace(/\s+/g, " "); // wrapped at 80 columns: read as one text
      expect(text).toContain("countersign cannot answer this from the facts: │ please use bcc instead");
      expect(text).toContain(
        "Sent as it is, it goes to the agent as a request for changes: the agent gets your text, and this request ends",
      );
      expect(await decision(id)).toMatchObject({ status: "pending" });
      t.keys("n");
      await t.waitForText("nothing was sent; the request still waits");
      expect(await decision(id)).toMatchObject({ status: "pending" });

      t.keys("?");
      await t.waitForText("Question, answered here from the facts");
      t.type("please use bcc instead");
      t.keys("Enter");
      await t.waitForText("Send to the agent as a request for changes (ends the request)?");
      t.keys("y");
      await t.waitForText("Sent to the agent as a request for changes; the request has ended.");
      expect(await decision(id)).toMatchObject({
        status: "request_more",
        decision: { kind: "request_more", approver: "alice", feedback: "please use bcc instead" },
      });
    }, 300_000);

    it("H shows the history, auto-passes included, with who decided; Enter opens one read-only", async () => {
      const answer = await a.call("POST", "/v1/requests", {
        body: { program: example("read-notes.ts"), source_name: "read-notes.ts" },
      });
      expect(answer.body).toMatchObject({ status: "approved", decision: { kind: "auto_approved" } }); // decided at once by the policy
      const auto: string = answer.body.id;
      const t = await small();
      await t.waitForText("· live");
      t.keys("H");
      const screen = await t.waitForText("countersign approve · history: ");
      const rows = rowsOf(await t.waitFor((s) => /^> /m.test(s), "the history listed"));
      expect(rows[2]).toMatch(/^> (Fetches|Reads|Lists)/);
      expect(rows[3]).toMatch(/^ {4}approved by the policy, \d+ s ago$/);
      expect(rows[4]).toBe("    read-notes.ts (agent-chosen name) · from agent");
      expect(screen).toContain("H pending requests");
      t.keys("Enter");
      const page = await t.waitForText(opened(auto));
      await t.waitForText("Decided: approved by the policy at ");
      expect(rowsOf(t.screen()).at(-1)).toBe(READ_ONLY_KEYS);
      expect(page).not.toContain(DECISION_KEYS);
      t.keys("a");
      await t.waitForText("this request is already auto_approved: no second decision");
      t.keys("Escape");
      await t.waitForText("countersign approve · history: ");
      t.keys("H");
      await t.waitFor((s) => /· \d+ pending ·/.test(s), "the pending requests again");
    }, 300_000);

    it("scrolls the remember screen's rules with j/k/Space/b, its prompt kept at the bottom", async () => {
      const id = await asking("Remember me");
      const t = await small();
      await listed(t);
      t.keys("Enter");
      await t.waitForText(opened(id));
      t.keys("A");
      const prompt = "Who may it let through?  1 this agent only (agent) · 2 every agent · Esc cancel";
      const first = rowsOf(await t.waitForText(prompt));
      expect(first.at(-1)).toBe(prompt);
      expect(first.at(-2)).toBe("more below and above: j/k/Space/b scroll");
      expect(first[0]).toBe("Approve and remember saves these allow rules:");
      expect(first.join("\n")).toContain("What else it lets through:");
      expect(first.join("\n")).not.toContain('"reason": "approved and remembered'); // the rule as saved runs on below
      const end = rowsOf(await scrollTo(t, '"reason": "approved and remembered'));
      expect(end.at(-1)).toBe(prompt);
      expect(end[0]).not.toBe("Approve and remember saves these allow rules:");
      t.keys("b", "b"); // a page up each, the second to the top
      await t.waitFor(
        (s) => s.startsWith("Approve and remember saves these allow rules:"),
        "the rules back at their top",
      );
      t.keys("j");
      await t.waitFor((s) => !s.startsWith("Approve and remember"), "one row down");
      t.keys("1"); // the choices go on from where the person scrolled to
      const next = rowsOf(await t.waitForText("For how long?  1 one hour · 2 one day · 3 until removed · Esc cancel"));
      expect(next[0]).not.toBe("Approve and remember saves these allow rules:");
      t.keys("Escape");
      await t.waitForText("cancelled; nothing was sent");
      expect(await decision(id)).toMatchObject({ status: "pending" });
    }, 300_000);

    it("cuts a long preview body with how many lines more; p shows it whole", async () => {
      const providerToken = "provider-secret-token";
      const gmail: GmailServer = await startGmailServer({ token: providerToken });
      try {
        writeFileSync(join(a.dataDir, "provider.token"), `${providerToken}\n`);
        writeFileSync(
          join(a.dataDir, "connections.toml"),
          `[email]\nbase_url = "${gmail.url}"\ntoken_file = "${join(a.dataDir, "provider.token")}"\n`,
        );
        const body = Array.from({ length: 40 }, (_, i) => `minutes row ${i + 1}`).join("\n");
        const raw = Buffer.from(`To: carol.preview@example.net\r\nSubject: Long minutes\r\n\r\n${body}\n`).toString(
          "base64url",
        );
        const made = await fetch(`${gmail.url}/gmail/v1/users/me/drafts`, {
          method: "POST",
          headers: { authorization: `Bearer ${providerToken}`, "content-type": "application/json" },
          body: JSON.stringify({ message: { raw } }),
        });
        const id = await submitProgram(sendDraft(((await made.json()) as { id: string }).id), "send-draft.ts");
        const t = await small();
        await listed(t);
        t.keys("Enter");
        await t.waitForText(opened(id));
        const cut = await scrollTo(t, "… 28 more lines (p: show all)");
        expect(cut).toContain("        │ minutes row 12");
        expect(cut).not.toContain("minutes row 13");
        t.keys("p");
        await t.waitForText("        │ minutes row 13"); // where the note was
        t.keys("g");
        await t.waitFor((s) => s.startsWith(opened(id)), "the view back at its top");
        const whole = await scrollTo(t, "(all 40 lines shown; p: fold)");
        expect(whole).toContain("        │ minutes row 40");
      } finally {
        await gmail.close();
      }
    }, 300_000);
  });
});

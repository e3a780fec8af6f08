// The terminal approver end to end: `countersign approve` in a real pseudo-terminal (tmux),
// driven by keys as a person types them, against a real authority; what the screen shows and
// what the API answers afterwards.
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../../src/model/paths.js";
import { authorityForSuite, example, warmAnalysis, type ApproverSession, type TestAuthority } from "../../authority/harness.js";
import { Tmux } from "./tmux.js";

const BIN = fileURLToPath(new URL("../../../src/cli/bin.ts", import.meta.url));
const HOSTILE = "Looks fine.\u001b]2;PWNED\u0007\u001b[2J\u001b[H\u001b[32m proven \u001b[0m\u202Eevil";

describe("countersign approve in a terminal", () => {
  let a: TestAuthority;
  let bob: ApproverSession;
  authorityForSuite("sqlite", (started) => (a = started));
  beforeAll(() => warmAnalysis(a), 120_000);

  const terminals: Tmux[] = [];
  afterEach(() => terminals.splice(0).forEach((t) => t.kill()));

  async function approve(height = 50): Promise<Tmux> {
    const t = new Tmux();
    terminals.push(t);
    // A valid submitter token in the environment: the authority refuses it on approver routes, so this works only if it stays unused.
    const env = { HOME: a.dataDir, COUNTERSIGN_HOME: a.dataDir, COUNTERSIGN_TOKEN: a.token, PATH: process.env.PATH ?? "" };
    t.start([process.execPath, "--import", "tsx", BIN, "approve", "--as", "alice"], { env, cwd: packageRoot, height });
    await t.waitForText("· live", 150_000); // tsx compiles the CLI first: slow on a loaded machine
    return t;
  }

  const submit = async (name: string, rationale?: string): Promise<string> => {
    const answer = await a.call("POST", "/v1/requests", { body: { program: example(name), source_name: name, ...(rationale === undefined ? {} : { rationale }) } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    return answer.body.id;
  };
  const decision = async (id: string) => (await a.call("GET", `/v1/requests/${id}`, { session: (bob ??= await a.login("bob")) })).body;
  const pendingCount = (n: number) => `· ${n} pending ·`;

  it("approves once, rejects with a reason and asks for changes, each from its key, then quits", async () => {
    const ids = [await submit("notify-team.ts"), await submit("notify-team.ts"), await submit("draft-and-send.ts")];
    const t = await approve();
    await t.waitForText(pendingCount(3));
    // Newest first: the cursor starts on the last one submitted; j and k move it.
    expect(t.screen().split("\n").filter((r) => r.startsWith(">"))).toHaveLength(1);
    t.keys("j", "j", "k");
    t.keys("Enter");
    await t.waitForText(`Request ${ids[1]} from agent agent`);
    t.keys("a");
    await t.waitForText("Approved once.");
    expect(await decision(ids[1]!)).toMatchObject({ status: "approved", decision: { kind: "approved_once", approver: "alice" } });
    expect(t.screen()).toContain("Decided: approved_once by alice at ");

    t.keys("Escape");
    await t.waitForText(pendingCount(2));
    t.keys("k", "Enter");
    await t.waitForText(`Request ${ids[2]} from agent agent`);
    t.keys("r");
    await t.waitForText("Reason for rejecting (sent to the agent): _");
    t.type("too many recipientz");
    t.keys("BSpace", "s", "Enter");
    await t.waitForText("Rejected.");
    expect(await decision(ids[2]!)).toMatchObject({ status: "rejected", decision: { kind: "rejected", approver: "alice", reason: "too many recipients" } });

    t.keys("Escape");
    await t.waitForText(pendingCount(1));
    t.keys("Enter");
    await t.waitForText(`Request ${ids[0]} from agent agent`);
    t.keys("m");
    await t.waitForText("Changes to ask the agent for: _");
    t.keys("Enter"); // nothing typed: not sent
    await t.waitForText("this needs some text (Esc cancels)");
    t.type("send it to alice only");
    t.keys("Enter");
    await t.waitForText("Sent back to the agent for changes.");
    expect(await decision(ids[0]!)).toMatchObject({ status: "request_more", decision: { kind: "request_more", approver: "alice", feedback: "send it to alice only" } });

    t.keys("q");
    // tmux marks the pane dead a moment before it records the exit status
    await t.waitFor(() => t.format("#{pane_dead}") === "1" && t.format("#{pane_dead_status}") !== "", "the approver exiting");
    expect(t.format("#{pane_dead_status}")).toBe("0");
  }, 300_000);

  it("shows new requests and decisions made elsewhere live, and hostile agent text as inert text", async () => {
    const t = await approve(30);
    const before = Number(/· (\d+) pending ·/.exec(t.screen())![1]);
    const id = await submit("notify-team.ts", HOSTILE);
    await t.waitForText(pendingCount(before + 1));
    t.keys("Enter");
    const screen = await t.waitForText("── The agent's words");
    const rows = screen.split("\n");
    expect(rows[0]).toMatch(new RegExp(`^Request ${id} from agent agent`));
    expect(rows).toContain("  │ Looks fine.␛]2;PWNED␇␛[2J␛[H␛[32m proven ␛[0m<U+202E>evil");
    expect(t.format("#{pane_title}")).not.toContain("PWNED");

    t.keys("v", "G"); // the end: the source's last line at the bottom, the header scrolled away
    await t.waitFor((s) => s.includes("▶12 │     await sendEmail({") && s.includes("18 │ });") && !s.startsWith("Request "), "the view scrolled to its end");
    t.keys("g");
    await t.waitFor((s) => s.startsWith(`Request ${id}`), "the view back at its top");

    const other = await a.login("bob");
    expect((await a.call("POST", `/v1/requests/${id}/decision`, { session: other, body: { decision: "approved_once" } })).status).toBe(200);
    await t.waitForText("Decided: approved_once by bob at ");
    t.keys("a");
    await t.waitForText("this request is already approved_once: no second decision");
    t.keys("Escape");
    await t.waitForText(pendingCount(before));
  }, 300_000);

  it("approve and remember shows the rule, asks who and how long, and saves it for exactly that", async () => {
    const id = await submit("notify-team.ts");
    const t = await approve();
    await t.waitForText("> ask");
    t.keys("Enter");
    await t.waitForText(`Request ${id}`);
    t.keys("A");
    await t.waitForText("Who may it let through?  1 this agent only (agent) · 2 every agent · Esc cancel");
    expect(t.screen()).toMatch(/remembered\.email\.send_email\.[0-9a-f]{12}: allow every `to` of email\.send_email is in/);
    expect(t.screen()).toContain("What else it lets through:");
    t.keys("1");
    await t.waitForText("For how long?  1 one hour · 2 one day · 3 until removed · Esc cancel");
    t.keys("1");
    await t.waitForText("Save for this agent only (agent agent), one hour, and approve?  y yes · n no");
    t.keys("y");
    await t.waitForText("Approved; the rules are remembered for this agent only, one hour.");
    const decided = await decision(id);
    expect(decided).toMatchObject({ status: "approved", decision: { kind: "approved_remember", approver: "alice" } });
    const rules = String((await a.call("GET", "/rules", { session: (bob ??= await a.login("bob")) })).body);
    expect(rules).toContain("only token <b>agent</b>");
    expect(rules).not.toContain("until removed");
  }, 300_000);
});

// `countersign approve` and its client against a real authority: the approver secret logs in,
// a submitter token is never what it uses, events arrive live, and bad setups say what is wrong.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ApproverClient, type LiveEvent } from "../../../src/cli/approve/approver-client.js";
import type { Io } from "../../../src/cli/command.js";
import { main } from "../../../src/cli/main.js";
import { packageRoot } from "../../../src/model/paths.js";
import { createApproverSecret } from "../../../src/store/index.js";
import { authorityForSuite, example, warmAnalysis, type TestAuthority } from "../../authority/harness.js";

function capture(env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    readStdin: async () => "",
    env: { HOME: "/home/me", ...env },
    cwd: packageRoot,
  };
  return { io, out: () => out.join(""), err: () => err.join("") };
}

/** A second data directory with an approver secret of its own. */
function otherDataDir(): string {
  const dir = join(mkdtempSync(join(tmpdir(), "countersign-other-")), "data");
  mkdirSync(dir);
  createApproverSecret(dir);
  return dir;
}

describe("countersign approve", () => {
  let a: TestAuthority;
  authorityForSuite("sqlite", (started) => (a = started));
  beforeAll(() => warmAnalysis(a), 120_000);

  const submit = async (rationale = "as asked"): Promise<string> => {
    const answer = await a.call("POST", "/v1/requests", {
      body: { program: example("notify-team.ts"), source_name: "notify-team.ts", rationale },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    return answer.body.id;
  };

  it("--json lists the pending requests with the approver secret, and a submitter token in the environment is not what it sends", async () => {
    const id = await submit("a \u001b[31m red \u202E reversed \u009b2J rationale");
    // The authority refuses any bearer token on approver routes: this passes only if the token stays unused.
    const c = capture({ COUNTERSIGN_HOME: a.dataDir, COUNTERSIGN_TOKEN: a.token });
    expect(await main(["approve", "--json", "--as", "carol"], c.io)).toBe(0);
    const listed = JSON.parse(c.out());
    expect(listed.requests.map((r: { id: string }) => r.id)).toContain(id);
    expect(listed.requests.find((r: { id: string }) => r.id === id).rationale).toBe(
      "a \u001b[31m red \u202E reversed \u009b2J rationale",
    );
    expect(c.out()).not.toMatch(/[\u001b\u009b\u202e]/u);
    expect(c.out()).toContain("\\u202e reversed \\u009b2J");
  });

  it("refuses to start without a terminal, and says to use --json", async () => {
    const c = capture({ COUNTERSIGN_HOME: a.dataDir });
    expect(await main(["approve"], c.io)).toBe(2);
    expect(c.err()).toBe(
      "countersign: usage_error: approve needs a terminal (or --json to list the pending requests)\n",
    );
  });

  it("a data directory without the approver secret cannot approve: it never falls back to the submitter token", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "countersign-token-only-")), "data");
    mkdirSync(dir);
    copyFileSync(join(a.dataDir, "submitter.token"), join(dir, "submitter.token"));
    const c = capture({ COUNTERSIGN_HOME: dir });
    expect(await main(["approve", "--json", "--url", a.url], c.io)).toBe(2);
    expect(JSON.parse(c.out()).error).toMatchObject({
      class: "config_error",
      message: expect.stringContaining(`cannot read the approver secret ${join(dir, "approver.secret")}`),
    });
  });

  it("another data directory's approver secret is refused by this authority", async () => {
    const c = capture({ COUNTERSIGN_HOME: otherDataDir() });
    expect(await main(["approve", "--json", "--url", a.url], c.io)).toBe(2);
    expect(JSON.parse(c.out()).error).toMatchObject({
      class: "capability_denied",
      message: expect.stringContaining("this login link is not valid"),
    });
  });

  it("says where it looked when nothing answers, and when no authority has served from the data directory", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const c = capture({ COUNTERSIGN_HOME: a.dataDir });
    expect(await main(["approve", "--json", "--url", `http://127.0.0.1:${port}`], c.io)).toBe(2);
    expect(JSON.parse(c.out()).error).toMatchObject({
      class: "network_error",
      message: `the authority at http://127.0.0.1:${port} cannot be reached: ECONNREFUSED`,
    });
    const empty = capture({ COUNTERSIGN_HOME: join(mkdtempSync(join(tmpdir(), "countersign-none-")), "data") });
    expect(await main(["approve", "--json"], empty.io)).toBe(2);
    expect(JSON.parse(empty.out()).error.message).toMatch(
      /^no authority has served from .*: start `countersign serve` first, or give --url$/,
    );
  });

  it("follows the event stream: a new request and a decision made elsewhere arrive as they happen", async () => {
    const client = new ApproverClient({ url: a.url, dataDir: a.dataDir, approver: "alice" });
    const events: LiveEvent[] = [];
    const stop = new AbortController();
    let connected!: () => void;
    const ready = new Promise<void>((resolve) => (connected = resolve));
    const watching = client.watch(
      { onEvent: (e) => events.push(e), onConnected: () => connected(), onDropped: () => undefined },
      stop.signal,
    );
    await ready;
    await new Promise((resolve) => setTimeout(resolve, 200)); // the authority subscribes after it answers with the stream's headers
    const id = await submit();
    const other = await a.login("bob");
    expect(
      (await a.call("POST", `/v1/requests/${id}/decision`, { session: other, body: { decision: "approved_once" } }))
        .status,
    ).toBe(200);
    for (let i = 0; i < 100 && events.filter((e) => e.request_id === id).length < 2; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    stop.abort();
    await watching;
    expect(events.filter((e) => e.request_id === id).map((e) => [e.type, e.status])).toEqual([
      ["pending", "pending"],
      ["resolved", "approved"],
    ]);
    expect((await client.page(id)).decision).toMatchObject({ kind: "approved_once", approver: "bob" });
  });
});

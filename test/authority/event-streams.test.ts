// Many open /v1/events streams on a real authority: each gets every event once and in order, a
// client that stops reading is cut off (and resumes from its last id with nothing lost), and a
// stream carries nothing past the end of the session that opened it.
import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import type { StoreEvent } from "../../src/model/request.js";
import { makeSession, SESSION_MS } from "../../src/authority/session.js";
import { readApproverSecret } from "../../src/store/index.js";
import { DIALECTS, submission } from "../store/fixtures.js";
import { authorityForSuite, openEvents, type ApproverSession, type TestAuthority } from "./harness.js";

/** Submissions straight into the authority's store, `together` at a time (they commit together). */
async function submitMany(a: TestAuthority, count: number, together = 50): Promise<void> {
  const { name } = await a.authority.state.store.addToken(`bulk-${count}-${Math.random()}`);
  for (let done = 0; done < count; done += together) {
    const results = await Promise.all(
      Array.from({ length: Math.min(together, count - done) }, () => a.authority.state.store.submit(submission(name))),
    );
    if (!results.every((r) => r.ok)) throw new Error("a submission was refused");
  }
}

describe.each(DIALECTS)("event streams over %s", (dialect) => {
  let a: TestAuthority;
  let alice: ApproverSession;
  authorityForSuite(dialect, (started, session) => ((a = started), (alice = session)));

  it("gives each of 100 open streams every event once, in order", async () => {
    const streams = Array.from({ length: 100 }, () => openEvents(a, alice));
    await Promise.all(streams.map((s) => s.opened));
    const from = (await eventsAfter(a, 0)).at(-1)?.id ?? 0;
    await submitMany(a, 60, 20);
    const expected = await eventsAfter(a, from);
    expect(expected).toHaveLength(60);
    const seen = await Promise.all(streams.map((s) => s.until((list) => list.length >= expected.length)));
    for (const s of streams) s.close();
    for (const list of seen)
      expect(list.map((e) => [e.id, e.data.request_id, e.data.status])).toEqual(
        expected.map((e) => [e.id, e.request_id, e.status]),
      );
  });

  it("ends a stream at the end of the session that opened it, and refuses it again", async () => {
    const secret = readApproverSecret(a.dataDir);
    // a session opened almost SESSION_MS ago: valid now, expired in a moment
    const { cookie } = makeSession(secret, "mallory", Date.now() - SESSION_MS + 300);
    const short: ApproverSession = { cookie: `countersign_session=${cookie}`, csrf: "" };
    const stream = openEvents(a, short);
    await stream.opened;
    await new Promise((resolve) => setTimeout(resolve, 400));
    await submitMany(a, 3, 3);
    await stream.ended;
    expect(await stream.until(() => true)).toEqual([]);
    expect((await a.call("GET", "/v1/events", { session: short })).status).toBe(401);
  });
});

/** Every event after `from`, page by page. */
async function eventsAfter(a: TestAuthority, from: number): Promise<StoreEvent[]> {
  const all: StoreEvent[] = [];
  for (let after = from; ; ) {
    const page = await a.authority.state.store.eventsSince(after, 10_000);
    if (page.length === 0) return all;
    all.push(...page);
    after = page.at(-1)!.id;
  }
}

/** Dechunk an HTTP/1.1 chunked body; `complete` when its last chunk arrived. */
function dechunk(raw: Buffer): { body: string; complete: boolean } {
  let at = raw.indexOf("\r\n\r\n") + 4;
  const parts: Buffer[] = [];
  for (;;) {
    const line = raw.indexOf("\r\n", at);
    if (line < 0) return { body: Buffer.concat(parts).toString("utf8"), complete: false };
    const size = parseInt(raw.subarray(at, line).toString("latin1"), 16);
    if (size === 0) return { body: Buffer.concat(parts).toString("utf8"), complete: true };
    if (line + 2 + size > raw.length) return { body: Buffer.concat(parts).toString("utf8"), complete: false };
    parts.push(raw.subarray(line + 2, line + 2 + size));
    at = line + 2 + size + 2;
  }
}

// The buffering under test is the server's own, the same for both stores; SQLite fills it fastest.
describe("a client that stops reading its event stream", () => {
  let a: TestAuthority;
  let alice: ApproverSession;
  authorityForSuite("sqlite", (started, session) => ((a = started), (alice = session)));

  it("is cut off instead of held in memory, and resumes from its last event id with nothing lost", async () => {
    const fast = openEvents(a, alice);
    await fast.opened;
    const from = (await eventsAfter(a, 0)).at(-1)?.id ?? 0;
    const { port } = new URL(a.url);
    const slow: Socket = connect(Number(port), "127.0.0.1");
    const received: Buffer[] = [];
    slow.on("data", (d: Buffer) => received.push(d));
    await new Promise((resolve) => slow.once("connect", resolve));
    slow.write(`GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${alice.cookie}\r\n\r\n`);
    await expect.poll(() => Buffer.concat(received).includes("\r\n\r\n")).toBe(true);
    slow.pause(); // reads nothing more: the kernel's buffers fill, then the server's
    // far more than the socket buffers and the stream's bound hold
    await submitMany(a, 30_000, 500);
    const expected = await eventsAfter(a, from);
    expect(expected).toHaveLength(30_000);
    // the fast stream, on the same server, got everything
    const all = await fast.until((list) => list.length >= expected.length);
    fast.close();
    expect(all.map((e) => e.id)).toEqual(expected.map((e) => e.id));
    // the slow one: a prefix, then the end of the stream
    slow.resume();
    await expect.poll(() => dechunk(Buffer.concat(received)).complete, { timeout: 20_000 }).toBe(true);
    slow.destroy();
    const ids = [...dechunk(Buffer.concat(received)).body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.length).toBeLessThan(expected.length);
    expect(ids).toEqual(expected.slice(0, ids.length).map((e) => e.id));
    // reconnecting with the last id it received brings the rest, in as many streams as the bound takes
    const rest: number[] = [];
    let last = ids.at(-1)!;
    for (let i = 0; i < 100 && last !== expected.at(-1)!.id; i++) {
      const again = openEvents(a, alice, last);
      await Promise.race([
        again.ended,
        again.until((list) => list.at(-1)?.id === expected.at(-1)!.id).catch(() => undefined),
      ]);
      again.close();
      const part = await again.until(() => true);
      rest.push(...part.map((e) => e.id));
      last = part.at(-1)?.id ?? last;
    }
    expect(rest).toEqual(expected.slice(ids.length).map((e) => e.id));
  }, 120_000);
});

// What runs gave their agents back, on both stores: kept per token and request, once, read by
// token and time, audited without the texts themselves.
import { afterAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/index.js";
import { DIALECTS, manualClock, newDatabase, opener, submission } from "./fixtures.js";

async function request(store: Store, token: string): Promise<string> {
  const result = await store.submit(submission(token, "auto_approved"));
  if (!result.ok) throw new Error("refused");
  return result.request.id;
}

describe.each(DIALECTS)("given texts on %s", (dialect) => {
  const clock = manualClock();
  const stores = opener(clock.now);
  afterAll(() => stores.closeAll());

  it("keeps each request's texts once, per token, and reads them back by time", async () => {
    const database = await newDatabase(dialect);
    const store = await stores.open(database);
    const a = (await store.addToken("agent-a")).name;
    const b = (await store.addToken("agent-b")).name;
    const first = await request(store, a);
    const text = { text: "pay DE89 3704 0044 0532 0130 00", from: ["email.get_draft"], request: first };
    expect(await store.recordGiven({ token: a, request_id: first, texts: [text], session: "s-1" })).toBe(true);
    expect(await store.recordGiven({ token: a, request_id: first, texts: [] })).toBe(false); // never rewritten
    const start = clock.now();
    clock.advance(60_000);
    const second = await request(store, a);
    await store.recordGiven({ token: a, request_id: second, texts: [{ text: "later", from: [], request: second }] });

    expect(await store.givenTo(a, 0)).toEqual([text, { text: "later", from: [], request: second }]);
    expect(await store.givenTo(a, start + 1)).toEqual([{ text: "later", from: [], request: second }]);
    expect(await store.givenTo(b, 0)).toEqual([]);

    await stores.closeAll();
    const again = await stores.open(database);
    expect(await again.givenTo(a, 0)).toHaveLength(2);
    const audit = [];
    for await (const entry of again.exportAudit()) if (entry.type === "output_recorded") audit.push(entry);
    expect(audit.map((e) => e.details)).toEqual([{ untrusted_texts: 1 }, { untrusted_texts: 1 }]);
    expect(JSON.stringify(audit)).not.toContain("DE89");
    expect((await again.verifyAuditChain()).ok).toBe(true);
  });
});

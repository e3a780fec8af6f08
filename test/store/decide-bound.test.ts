// An approval that binds shown content narrows the grants the request's receipt will carry: the
// store saves the narrowed policy decision with the decision, in the same transaction, and only
// when it records the decision.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolicyDecision } from "../../src/model/index.js";
import type { Store } from "../../src/store/index.js";
import { DIALECTS, manualClock, newDatabase, opener, submission } from "./fixtures.js";

const grant = {
  op: "email.send_draft",
  connector: { name: "email", sha256: "c".repeat(64) },
  args: { draft_id: { in: ["r1"] } },
  count: { max: 1 },
};
const narrowed = { ...grant, args: { ...grant.args, body: { sha256: ["b".repeat(64)] } } };

describe.each(DIALECTS)("decisions that bind shown content, on %s", (dialect) => {
  const stores = opener(manualClock().now);
  let store: Store;
  let token: string;
  beforeAll(async () => {
    store = await stores.open(await newDatabase(dialect));
    token = (await store.addToken("agent-1")).name;
  });
  afterAll(() => stores.closeAll());

  const submitted = async () => {
    const input = submission(token);
    const r = await store.submit({ ...input, policy: { ...input.policy, grants: [grant] } });
    if (!r.ok) throw new Error("refused");
    return r.request;
  };

  it("an approval with `bound` saves its narrowed grants, and the audit entry names the binding's digest", async () => {
    const request = await submitted();
    const policy: PolicyDecision = { ...request.policy, grants: [narrowed] };
    const decided = await store.decide(request.id, {
      kind: "approved_once",
      approver: "alice",
      bound: { sha256: "d".repeat(64), policy },
    });
    expect(decided).toMatchObject({ ok: true, changed: true });
    expect((await store.get(request.id))!.policy.grants).toEqual([narrowed]);
    const entries: { type: string; request_id: string | null; details: Record<string, unknown> }[] = [];
    for await (const entry of store.exportAudit()) entries.push(entry as unknown as (typeof entries)[number]);
    expect(entries.find((e) => e.type === "decided" && e.request_id === request.id)?.details).toMatchObject({
      kind: "approved_once",
      bound_sha256: "d".repeat(64),
    });
  });

  it("a second approval on a decided request changes nothing: the first binding stands", async () => {
    const request = await submitted();
    await store.decide(request.id, {
      kind: "approved_once",
      approver: "alice",
      bound: { sha256: "d".repeat(64), policy: { ...request.policy, grants: [narrowed] } },
    });
    const again = await store.decide(request.id, {
      kind: "approved_once",
      approver: "bob",
      bound: { sha256: "e".repeat(64), policy: request.policy },
    });
    expect(again).toMatchObject({ ok: true, changed: false });
    expect((await store.get(request.id))!.policy.grants).toEqual([narrowed]);
  });

  it("an approval without `bound` keeps the policy decision as the policy made it", async () => {
    const request = await submitted();
    await store.decide(request.id, { kind: "approved_once", approver: "alice" });
    expect((await store.get(request.id))!.policy.grants).toEqual([grant]);
  });
});

// Many callers at once against one authority, over each store: one decision wins, no submission
// is lost, and the audit log names a changed row.
import { describe, expect, it } from "vitest";
import { DIALECTS, rawSql } from "../store/fixtures.js";
import { authorityForSuite, example, type ApproverSession, type TestAuthority } from "./harness.js";

// Stall guards, not speed targets: 200 analyses take seconds on 2 quiet cores, minutes on a busy machine.
const STALL_GUARD_MS = 300_000;

describe.each(DIALECTS)("concurrency over %s", (dialect) => {
  let a: TestAuthority;
  let alice: ApproverSession;
  authorityForSuite(dialect, (started, session) => ((a = started), (alice = session)));

  const audit = async () =>
    String((await a.call("GET", "/v1/audit", { session: alice })).body)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));

  it(
    "50 simultaneous decisions on one request: exactly one is recorded",
    async () => {
      const { id } = (await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } })).body;
      const bodies = Array.from({ length: 50 }, (_, i) =>
        i % 2 === 0 ? { decision: "approved_once" } : { decision: "rejected", reason: `no ${i}` },
      );
      const answers = await Promise.all(
        bodies.map((body) => a.call("POST", `/v1/requests/${id}/decision`, { session: alice, body })),
      );
      const changed = answers.filter((r) => r.status === 200 && r.body.changed === true);
      expect(changed).toHaveLength(1);
      const winner = changed[0]!.body.decision;
      for (const [i, r] of answers.entries()) {
        // A decision of the winner's kind is a repeat (a rejection in other words too): 200, changed false.
        const same = bodies[i]!.decision === winner.kind;
        expect([i, r.status]).toEqual([i, same ? 200 : 409]);
      }
      expect((await audit()).filter((e) => e.type === "decided" && e.request_id === id)).toHaveLength(1);
    },
    STALL_GUARD_MS,
  );

  it(
    "200 concurrent submissions: none is lost",
    async () => {
      const programs = Array.from({ length: 200 }, (_, i) =>
        example("notify-team.ts").replace("Weekly report ready", `Weekly report ready #${i}`),
      );
      const answers = await Promise.all(
        programs.map((program) => a.call("POST", "/v1/requests", { body: { program } })),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(200).fill(202));
      const ids = new Set(answers.map((r) => r.body.id as string));
      expect(ids.size).toBe(200);
      const listed = new Set<string>();
      let cursor: string | undefined;
      do {
        const page = (
          await a.call(
            "GET",
            `/v1/requests?status=pending&limit=500${cursor === undefined ? "" : `&cursor=${cursor}`}`,
            { session: alice },
          )
        ).body;
        for (const r of page.requests) listed.add(r.id);
        cursor = page.cursor;
      } while (cursor !== undefined);
      for (const id of ids) expect(listed.has(id)).toBe(true);
      expect((await a.call("GET", "/v1/audit/verify", { session: alice })).body).toMatchObject({ ok: true });
    },
    STALL_GUARD_MS,
  );

  it("a changed audit row: audit verify names that entry", async () => {
    const entries = await audit();
    const target = entries.find((e) => e.type === "decided")!;
    await rawSql(a.database, `UPDATE audit SET actor = 'mallory' WHERE id = ${target.id}`);
    expect((await a.call("GET", "/v1/audit/verify", { session: alice })).body).toMatchObject({
      ok: false,
      broken_id: target.id,
      reason: "hash_mismatch",
    });
  });
});

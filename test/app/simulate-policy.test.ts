import { describe, expect, it } from "vitest";
import { simulatePolicy, type SimulationInput } from "../../src/app/index.js";
import type { StoredRequest } from "../../src/model/request.js";
import { decide } from "../../src/policy/index.js";
import { facts, mail, policyOf, shippedManifests, val } from "../policy/helpers.js";

const manifests = shippedManifests();
const asks = policyOf('default = "ask"\n');
const allowsMail = policyOf(
  'default = "ask"\n\n[[rules]]\nid = "mail.ok"\ndecision = "allow"\nop = "email.send_email"\n',
);

let seq = 0;
/** A request as the store answers it, decided when it was submitted by `policy`. */
function stored(decidedBy = asks, extra: Partial<StoredRequest> = {}): StoredRequest {
  const f = facts([mail(val("bob@example.com"))]);
  seq++;
  return {
    id: `req_${seq}`,
    seq,
    token: "agent",
    status: "pending",
    source: "",
    facts: f,
    policy: decide(f, decidedBy, manifests),
    rationale: null,
    created_at: Date.UTC(2030, 0, 1, 0, seq),
    deadline_at: 0,
    decision: null,
    ...extra,
  };
}

const input = (recorded: SimulationInput["recorded"], policy = allowsMail, problem?: string): SimulationInput => ({
  recorded,
  policyFor: () => policy,
  manifestsOf: () => (problem === undefined ? { set: manifests } : { set: manifests, problem }),
});

describe("simulatePolicy", () => {
  it("says which call changes and by which rule, and counts before and after", () => {
    const request = stored();
    const { requests, totals } = simulatePolicy(input([{ request }]));
    expect(requests[0]).toMatchObject({
      id: request.id,
      created_at: "2030-01-01T00:01:00.000Z",
      before: "ask",
      after: "auto_approved",
      changed: true,
      problem: null,
    });
    expect(requests[0]!.rulings).toEqual([
      {
        op: "email.send_email",
        line: request.facts.effects[0]!.site.line,
        before: { verdict: "ask", rule: null },
        after: { verdict: "allow", rule: "mail.ok" },
      },
    ]);
    expect(totals).toEqual({
      requests: 1,
      before: { auto_approved: 0, ask: 1, auto_rejected: 0 },
      after: { auto_approved: 1, ask: 0, auto_rejected: 0 },
      changed: 1,
      cannot_replay: 0,
    });
  });

  it("the same policy changes nothing and lists no ruling", () => {
    const { requests, totals } = simulatePolicy(input([{ request: stored(allowsMail) }]));
    expect(requests[0]).toMatchObject({ before: "auto_approved", after: "auto_approved", changed: false, rulings: [] });
    expect(totals.changed).toBe(0);
  });

  it("a recorded decision without a verdict for a call says so, never makes one up", () => {
    const request = stored();
    const { requests } = simulatePolicy(
      input([{ request: { ...request, policy: { ...request.policy, effects: [] } } }]),
    );
    expect(requests[0]!.rulings).toEqual([
      expect.objectContaining({ before: null, after: { verdict: "allow", rule: "mail.ok" } }),
    ]);
  });

  it("a request whose manifests cannot be had, or a row that no longer reads, cannot be replayed and counts in no tally", () => {
    const recorded = [
      { request: stored() },
      { id: "req_old", created_at: 0, problem: "the recorded facts.ok no longer reads: Required" },
    ];
    const { requests, totals } = simulatePolicy(
      input(recorded, allowsMail, "the agent manifests were not kept with this request"),
    );
    expect(requests.map((r) => [r.id, r.before, r.after, r.problem])).toEqual([
      [expect.any(String), "ask", null, "the agent manifests were not kept with this request"],
      ["req_old", null, null, "the recorded facts.ok no longer reads: Required"],
    ]);
    expect(totals).toMatchObject({
      requests: 2,
      before: { ask: 0 },
      after: { auto_approved: 0 },
      changed: 0,
      cannot_replay: 2,
    });
  });

  it("each request is decided with its own token's policy", () => {
    const seen: string[] = [];
    simulatePolicy({
      ...input([{ request: stored(asks, { token: "a" }) }, { request: stored(asks, { token: "b" }) }]),
      policyFor: (token) => (seen.push(token), asks),
    });
    expect(seen).toEqual(["a", "b"]);
  });
});

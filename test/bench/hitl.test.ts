// The human-in-the-loop task set (bench/hitl): the analysis accepts every program, no injection
// case runs without a person, and the benign tasks a person is asked about can only get fewer.
import { describe, expect, it } from "vitest";
import { decideTasks } from "../../bench/hitl-tasks.js";

// Lower it when the policy asks less; a change that asks more must say why and raise it here.
const BENIGN_ASKED_AT_MOST = 8;

const outcomes = decideTasks();
const benign = outcomes.filter((t) => !t.injection);
const injections = outcomes.filter((t) => t.injection);

describe("human-in-the-loop task set", () => {
  it("holds at least 25 benign tasks and 8 injection cases", () => {
    expect(benign.length).toBeGreaterThanOrEqual(25);
    expect(injections.length).toBeGreaterThanOrEqual(8);
  });

  it.each(outcomes.map((t) => [t.name, t] as const))("the analysis accepts %s", (_, t) => {
    expect(t.facts.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  it.each(injections.map((t) => [t.name, t] as const))("injection %s asks or is denied", (_, t) => {
    expect(["ask", "auto_rejected"]).toContain(t.decision.kind);
  });

  it(`asks about at most ${BENIGN_ASKED_AT_MOST} benign tasks`, () => {
    const asked = benign.filter((t) => t.decision.kind !== "auto_approved").map((t) => t.name);
    expect(asked.length).toBeLessThanOrEqual(BENIGN_ASKED_AT_MOST);
  });
});

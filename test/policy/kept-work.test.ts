// What decide keeps between decisions of one facts object (prepared-facts, build-grants'
// constraints): shared grant constraints are frozen, the facts' own values are left as they are,
// and every decision still reads the policy it is given.
import { describe, expect, it } from "vitest";
import { decide } from "../../src/policy/decide.js";
import type { AbstractValue } from "../../src/model/abstract.js";
import { effect, facts, policyOf, shippedManifests } from "./helpers.js";

const set = shippedManifests();
const allowAll = policyOf(`default = "ask"\n[[rules]]\nid = "post"\ndecision = "allow"\nop = "http.post"\n`);
const denyAll = policyOf(
  `default = "ask"\n[[rules]]\nid = "no-post"\ndecision = "deny"\nop = "http.post"\nreason = "no"\n`,
);
const record = { id: 7, tags: ["a"] };
// An object constant where a string goes (the connector would refuse it): the grant lists it as it is.
const body: AbstractValue = { kind: "const", values: [record, "text"] };
const program = facts([effect("http.post", { url: { kind: "const", values: ["https://api.example.com/x"] }, body })]);

describe("work kept per facts object", () => {
  it("gives each decision of the same facts the same grants, whose shared constraints cannot be changed", () => {
    const first = decide(program, allowAll, set);
    const again = decide(program, allowAll, set);
    expect(again).toEqual(first);
    expect(first.kind).toBe("auto_approved");
    const url = first.grants[0]!.args.url!;
    expect(Object.isFrozen(url)).toBe(true);
    expect(() => ((url as { all: unknown[] }).all as unknown[]).push({ eq: 1 })).toThrow(TypeError);
  });

  it("leaves the facts' own values unfrozen", () => {
    decide(program, allowAll, set);
    expect(Object.isFrozen(record)).toBe(false);
    expect(Object.isFrozen(record.tags)).toBe(false);
    expect(JSON.stringify(decide(program, allowAll, set).grants[0]!.args.body)).toContain('"id":7');
    expect(Object.isFrozen(program.effects[0]!.args)).toBe(false);
  });

  it("decides the same facts afresh under each policy", () => {
    expect(decide(program, allowAll, set).kind).toBe("auto_approved");
    expect(decide(program, denyAll, set).kind).toBe("auto_rejected");
    expect(decide(program, allowAll, set).kind).toBe("auto_approved");
  });
});

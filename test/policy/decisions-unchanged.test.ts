// The policy's decisions, explanations and receipts, pinned: every example program and every case
// of the default policy's tests, under the default policy and under it with the program's
// remembered rules, and random policies over random facts — against the outputs the code gave
// before its speed work (fixtures/decisions.json). Speed-ups must not change a single byte.
// After an intended change of decisions, write the fixture anew with DECISIONS_FIXTURE=write.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { decideAndSign } from "../../src/app/decide-and-sign.js";
import { loadPolicy } from "../../src/config/index.js";
import type { ManifestSet } from "../../src/manifest/index.js";
import type { Facts } from "../../src/model/facts.js";
import { packageRoot } from "../../src/model/paths.js";
import { parseToml } from "../../src/model/index.js";
import { decide } from "../../src/policy/decide.js";
import { explain } from "../../src/policy/explain.js";
import { rememberRule } from "../../src/policy/remember-rule.js";
import type { Policy } from "../../src/policy/schema.js";
import { generateKey } from "../../src/receipt/index.js";
import { withAgent } from "../support/agent-manifests.js";
import { effect, guarantee, policy as randomPolicy } from "./arbitraries.js";
import { facts as factsOf, shippedManifests } from "./helpers.js";

const FIXTURE = join(import.meta.dirname, "fixtures", "decisions.json");
const NOW = new Date("2030-01-01T00:00:00Z");
const key = await generateKey(NOW);

const shipped = shippedManifests();
const agentSet = withAgent(
  [
    {
      name: "create_issue.toml",
      text: readFileSync(join(packageRoot, "examples/agent-manifests/create_issue.toml"), "utf8"),
    },
  ],
  {
    hosts: { http: ["api.example.com:443"] },
    roots: {},
  },
);
const analyzers = [createAnalyzer(shipped), createAnalyzer(agentSet)];
afterAll(() => {
  for (const a of analyzers) a.dispose();
});
const defaultPolicy = loadPolicy(join(packageRoot, "policies"), {
  manifests: shipped,
  home: "/home/user",
  ownAddresses: ["me@example.com"],
});

/** What the policy stage says about one program: decision, full reasoning (its hash) and the receipt's claims (its jti is random). */
function outputs(facts: Facts, policy: Policy, set: ManifestSet): unknown {
  const decision = decide(facts, policy, set);
  const signed = decideAndSign(facts, policy, set, {
    id: "req_AAAAAAAAAAAAAAAAAAAAAA",
    issuer: "https://authority.test",
    now: NOW,
    key,
  });
  expect(signed.decision).toEqual(decision);
  const payload =
    signed.receipt === undefined
      ? null
      : Buffer.from(signed.receipt.token.split(".")[1]!, "base64url")
          .toString("utf8")
          .replace(/"jti":"[A-Za-z0-9_-]{22}"/, '"jti":"-"');
  return withoutCheckout({ decision, explanation: sha256(withoutCheckout(explain(facts, policy, set))), payload });
}

/** The policy files' paths name the checkout the test runs in: the same outputs anywhere. */
function withoutCheckout<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replaceAll(packageRoot, "<package>")) as T;
}

/** The default policy with the rules "approve and remember" would save for this program. */
function remembering(facts: Facts, set: ManifestSet): Policy {
  const rules = rememberRule(facts, decide(facts, defaultPolicy, set), set).flatMap((r) =>
    r.rule === null ? [] : [{ ...r.rule, file: "remembered.toml" }],
  );
  return { ...defaultPolicy, rules: [...defaultPolicy.rules, ...rules] };
}

function programs(): { name: string; facts: Facts; set: ManifestSet }[] {
  const found: { name: string; facts: Facts; set: ManifestSet }[] = [];
  const examples = join(packageRoot, "examples");
  for (const entry of readdirSync(examples)
    .filter((f) => f.endsWith(".ts"))
    .sort()) {
    const agent = entry === "file-issue.ts";
    const facts = analyzers[agent ? 1 : 0]!.analyze(readFileSync(join(examples, entry), "utf8"), { entry });
    found.push({ name: `examples/${entry}`, facts, set: agent ? agentSet : shipped });
  }
  const parsed = parseToml(readFileSync(join(packageRoot, "policies/tests/default.toml"), "utf8"));
  if (!("value" in parsed)) throw new Error("the default policy's tests do not parse");
  const corpus = parsed.value as { cases: { name: string; source: string }[] };
  for (const c of corpus.cases)
    found.push({
      name: `policy test: ${c.name}`,
      facts: analyzers[0]!.analyze(c.source, { entry: "main.ts" }),
      set: shipped,
    });
  return found;
}

function randomCases(): { name: string; output: unknown }[] {
  const cases = fc.sample(
    fc.tuple(randomPolicy, fc.array(effect, { maxLength: 4 }), fc.array(guarantee, { maxLength: 2 })),
    { seed: 20261124, numRuns: 400 },
  );
  return cases.map(([p, effects, guarantees], i) => ({
    name: `random ${i}`,
    output: outputs(factsOf(effects, guarantees), p, shipped),
  }));
}

const sha256 = (value: unknown): string => createHash("sha256").update(JSON.stringify(value)).digest("hex");

interface Fixture {
  programs: Record<string, unknown>;
  random: Record<string, string>; // sha256 of each output's JSON
}

function current(): Fixture {
  const fixture: Fixture = { programs: {}, random: {} };
  for (const { name, facts, set } of programs()) {
    fixture.programs[`${name} | default policy`] = outputs(facts, defaultPolicy, set);
    fixture.programs[`${name} | with its remembered rules`] = outputs(facts, remembering(facts, set), set);
  }
  for (const { name, output } of randomCases()) fixture.random[name] = sha256(output);
  return fixture;
}

describe("decisions stay as they were", () => {
  it("for the examples, the policy tests and random policies over random facts", () => {
    const now = current();
    if (process.env.DECISIONS_FIXTURE === "write") writeFileSync(FIXTURE, `${JSON.stringify(now, null, 1)}\n`);
    const expected = JSON.parse(readFileSync(FIXTURE, "utf8")) as Fixture;
    expect(Object.keys(now.programs).length).toBeGreaterThan(40);
    for (const [name, output] of Object.entries(expected.programs))
      expect({ name, output: JSON.parse(JSON.stringify(now.programs[name] ?? null)) }).toEqual({ name, output });
    expect(now.random).toEqual(expected.random);
  });
});

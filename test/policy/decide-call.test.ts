// decideCall decides one concrete call (a preview's read) by the same evaluation as a program:
// for each call below it must agree with the decision of a real program that makes exactly that
// call with those constants, under the shipped policy and under one with rules on reads.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { decide, decideCall } from "../../src/policy/index.js";
import { policyOf, shippedManifests } from "./helpers.js";

const set = shippedManifests();
const analyzer = createAnalyzer(set);
afterAll(() => analyzer.dispose());

const shipped = policyOf(readFileSync(join(packageRoot, "policies", "default.toml"), "utf8"));
const withReads = policyOf(`default = "deny"
[[rules]]
id = "drafts.private"
decision = "deny"
op = "email.get_draft"
when = { args = { id = { in = ["r_private"] } } }
reason = "a private draft"

[[rules]]
id = "drafts.read"
decision = "allow"
op = "email.get_draft"

[[rules]]
id = "docs.ask"
decision = "ask"
op = "http.get"
when = { args = { url = { prefix = "https://api.example.com/docs/" } } }
`);

/** A program whose only trusted call is `call`. */
const program = (module: string, fn: string, args: Record<string, string>) => `import { program } from "countersign";
import { ${fn} } from "trusted/${module}";
export default program({ rationale: "one call", guarantees: [], async main() { await ${fn}(${JSON.stringify(args)}); } });
`;

const calls: { op: string; module: string; fn: string; args: Record<string, string> }[] = [
  { op: "http.get", module: "http", fn: "get", args: { url: "https://api.example.com/v1/status" } },
  { op: "http.get", module: "http", fn: "get", args: { url: "https://evil.example/collect?x=1" } },
  { op: "http.get", module: "http", fn: "get", args: { url: "https://api.example.com/docs/a" } },
  { op: "email.get_draft", module: "email", fn: "getDraft", args: { id: "r1" } },
  { op: "email.get_draft", module: "email", fn: "getDraft", args: { id: "r_private" } },
];

describe("decideCall", () => {
  for (const policy of [shipped, withReads]) {
    for (const call of calls) {
      it(`${call.op} ${JSON.stringify(call.args)}: the verdict of a program making that call`, () => {
        const facts = analyzer.analyze(program(call.module, call.fn, call.args));
        expect(facts.ok).toBe(true);
        const expected = decide(facts, policy, set).effects[0]!;
        const verdict = decideCall(
          { op: call.op, args: call.args, site: expected.site, influencedBy: facts.effects[0]!.influencedBy ?? [] },
          policy,
          set,
        );
        expect({ verdict: verdict.verdict, rule: verdict.rule }).toEqual({
          verdict: expected.verdict,
          rule: expected.rule,
        });
      });
    }
  }

  it("names the deciding rule", () => {
    expect(
      decideCall(
        { op: "http.get", args: { url: "https://evil.example/" }, site: { line: 1, column: 1 } },
        shipped,
        set,
      ),
    ).toMatchObject({ verdict: "deny", rule: "http.unlisted-host" });
    expect(
      decideCall({ op: "email.get_draft", args: { id: "r_private" }, site: { line: 1, column: 1 } }, withReads, set),
    ).toMatchObject({ verdict: "deny", rule: "drafts.private" });
    expect(
      decideCall(
        { op: "http.get", args: { url: "https://api.example.com/docs/a" }, site: { line: 1, column: 1 } },
        withReads,
        set,
      ),
    ).toMatchObject({ verdict: "ask", rule: "docs.ask" });
  });
});

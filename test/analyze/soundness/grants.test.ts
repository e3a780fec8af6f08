// A run can never leave its facts: for every generated program, each concrete run's calls, fed in
// order to the trusted wrapper's check under a receipt built from the program's facts and
// decision, are all admitted — up to the first call that breaks an enforced guarantee or a deny
// guard, which must be refused exactly there. And grants built from corrupted facts (a wrong
// constant, a smaller count) refuse the run that the true facts describe.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { propertyAnalyzer } from "../support/property-analyzer.js";
import type { AbstractValue } from "../../../src/model/abstract.js";
import type { Effect, Facts } from "../../../src/model/facts.js";
import type { Json } from "../../../src/model/json.js";
import { canonicalArgs } from "../../../src/connector/canonical-args.js";
import { checkArgs } from "../../../src/connector/check-args.js";
import { constraintOf, satisfies } from "../../../src/constraint/index.js";
import { decide } from "../../../src/policy/decide.js";
import type { Keyring } from "../../../src/receipt/index.js";
import { openKeyring } from "../../../src/store/index.js";
import { compileProgram, type Trace } from "../support/concrete-runner.js";
import { withTestAgents } from "../support/agent-test-manifests.js";
import { effectOptions, testManifests } from "../support/test-manifests.js";
import { generateProgram, programChoices } from "./generate-program.js";
import { contains } from "./contains.js";
import { approve, policyFrom, replay } from "./replay.js";
import { firstBreak, violations } from "./violations.js";

// FC_RUNS for a longer run, FC_SEED to replay one (test/fast-check-setup.ts).
const RUNS = Number(process.env.FC_RUNS ?? 150);

const set = withTestAgents(testManifests());
const opts = effectOptions(set);
const analyzer = propertyAnalyzer(set);
let keys: Keyring;
beforeAll(async () => {
  keys = await openKeyring(mkdtempSync(join(tmpdir(), "countersign-grants-")));
});
afterAll(() => analyzer.dispose());

// Deny rules over the generator's alphabets, so that programs are rejected, guarded or passed.
const guarded = policyFrom(
  `default = "ask"

[[rules]]
id = "no-y-org"
decision = "deny"
op = "email.*"
when = { args = { to = { glob = "*@y.org" } } }
reason = "no mail to y.org"

[[rules]]
id = "sandbox"
decision = "deny"
op = "fs.write_file"
when = { args = { path = { not = { under = "~/Sandbox" } } } }
reason = "writes stay in the sandbox"

[[rules]]
id = "hosts"
decision = "deny"
op = "http.*"
when = { args = { url = { not = { host_in = ["api.x.com"] } } } }
reason = "only api.x.com"
`,
  set,
);
const permissive = policyFrom(`default = "ask"\n`, set);

// What reads return in each concrete run (as in the soundness test).
const readText = fc.constantFrom(
  "",
  "a@x.com",
  "b@x.com,c@y.org",
  "hello world, a longer text",
  "https://evil.com/",
  "/etc/passwd",
  "https://api.x.com/v1?q=a*b",
);
const runs = fc.array(fc.array(readText, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 });

function traces(source: string, reads: readonly (readonly string[])[]): Trace[] {
  const program = compileProgram(source, set);
  return reads.map((texts) =>
    program.run({ readText: (_op, n) => (texts.length === 0 ? "" : texts[n % texts.length]!) }),
  );
}

/** Whether a call's arguments have its action's declared inputs, types and canonical forms (what the connector requires). */
function fitsInputs(op: string, args: Record<string, Json>): boolean {
  try {
    const action = set.actions.get(op)!;
    checkArgs(action, canonicalArgs(action, args));
    return true;
  } catch {
    return false;
  }
}

/** Accepted programs only: a refused or self-refuting one gets no receipt. */
function analyzed(source: string): Facts | undefined {
  const facts = analyzer.analyze(source);
  return facts.ok && facts.diagnostics.length === 0 ? facts : undefined;
}

describe("grants built from the facts", () => {
  it(`admit every call of every run of ${RUNS} random programs, up to the first that breaks an enforced constraint`, {
    timeout: Math.max(120_000, RUNS * 400),
  }, async () => {
    const seen = { programs: 0, calls: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(programChoices, runs, async (choices, reads) => {
        const source = generateProgram(choices);
        const facts = analyzed(source);
        if (facts === undefined) return;
        const decision = decide(facts, guarded, set);
        if (decision.kind === "auto_rejected") return;
        seen.programs++;
        const start = await approve(source, facts, decision, keys);
        // Everything the receipt enforces beyond the facts: guarantees (proven ones never break) and guards.
        const enforced = [
          ...facts.guarantees.filter((g) => g.status !== "refuted").map((g) => g.source),
          ...decision.guards,
        ];
        for (const trace of traces(source, reads)) {
          // A call that does not fit its action's declared inputs (a required one left undefined, a path
          // not in canonical form) is refused as well: grants carry the types and the wrapper the forms.
          const misfit = trace.calls.findIndex((c) => !fitsInputs(c.op, c.args));
          const breaks = [
            ...enforced.map((c) => firstBreak(c, trace.calls, opts)),
            misfit < 0 ? undefined : misfit,
          ].filter((i) => i !== undefined);
          const expected = breaks.length === 0 ? null : Math.min(...breaks);
          const { refusedAt, error } = replay(await start(), set, trace.calls);
          const context = `\n--- program ---\n${source}\n--- calls ---\n${JSON.stringify(trace.calls.map((c) => [c.op, c.args]))}\n--- grants ---\n${JSON.stringify({ grants: decision.grants, across: decision.across })}`;
          expect(refusedAt, `refused at ${refusedAt} (${error?.message}), expected ${expected}${context}`).toBe(
            expected,
          );
          if (error !== undefined) expect(error.class, error.message).toBe("grant_violation");
          seen.calls += refusedAt ?? trace.calls.length;
          if (refusedAt !== null) seen.refused++;
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
    // The property bites only if programs get receipts, make calls, and some runs break a guard.
    expect(seen.programs).toBeGreaterThan(RUNS / 4);
    expect(seen.calls).toBeGreaterThan(RUNS / 4);
    expect(seen.refused).toBeGreaterThan(0);
  });
});

describe("grants built from corrupted facts refuse the run the true facts describe", () => {
  const corruptions = fc.record({ pick: fc.nat(), which: fc.constantFrom("value", "count") });

  it(`for ${RUNS} random programs: a wrong constant or a smaller count stops the run at or before the call it no longer covers`, {
    timeout: Math.max(120_000, RUNS * 400),
  }, async () => {
    const seen = { value: 0, count: 0 };
    await fc.assert(
      fc.asyncProperty(programChoices, readText, corruptions, async (choices, text, { pick, which }) => {
        const source = generateProgram(choices);
        const facts = analyzed(source);
        if (facts === undefined) return;
        const [trace] = traces(source, [[text]]);
        const corrupted = which === "value" ? wrongValue(facts, trace!, pick) : smallerCount(facts, trace!, pick);
        if (corrupted === undefined) return;
        const decision = decide(corrupted.facts, permissive, set);
        if (decision.kind === "auto_rejected") return;
        seen[which]++;
        const { refusedAt, error } = replay(
          await (await approve(source, corrupted.facts, decision, keys))(),
          set,
          trace!.calls,
        );
        expect(refusedAt, `${which}: not refused by call ${corrupted.at}\n${source}`).not.toBeNull();
        expect(refusedAt!).toBeLessThanOrEqual(corrupted.at);
        expect(error?.class).toBe("grant_violation");
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
    expect(seen.value).toBeGreaterThan(RUNS / 10);
    expect(seen.count).toBeGreaterThan(RUNS / 20);
  });
});

describe("corrupted facts, by hand", () => {
  const program = (body: string, imports: string) => `import { program } from "countersign";
${imports}

export default program({
  rationale: "r",
  async main() {
${body}
  },
});
`;

  async function refusalUnder(source: string, change: (facts: Facts) => void, text = "notes") {
    const facts = analyzed(source)!;
    const [trace] = traces(source, [[text]]);
    change(facts);
    const decision = decide(facts, permissive, set);
    return {
      ...replay(await (await approve(source, facts, decision, keys))(), set, trace!.calls),
      calls: trace!.calls,
    };
  }

  it("a wrong constant recipient", async () => {
    const source = program(
      `    await sendEmail({ to: ["a@x.com"], subject: "s", body: "b" });`,
      `import { sendEmail } from "trusted/email";`,
    );
    const { refusedAt, error } = await refusalUnder(
      source,
      (f) => (f.effects[0]!.args.to = { kind: "const", values: [["b@x.com"]] }),
    );
    expect(refusedAt).toBe(0);
    expect(error?.details).toEqual({ reason: "argument_refused", op: "email.send_email", input: "to" });
  });

  it("a smaller count", async () => {
    const source = program(
      `    for (let i = 0; i < 3; i++) await sendEmail({ to: ["a@x.com"], subject: "s", body: "b" });`,
      `import { sendEmail } from "trusted/email";`,
    );
    const { refusedAt, error } = await refusalUnder(source, (f) => (f.effects[0]!.count = { min: 2, max: 2 }));
    expect(refusedAt).toBe(2);
    expect(error?.details).toMatchObject({ reason: "count_exceeded" });
  });

  it("a call refused at the boundary (a list with a hole) counts at its site and uses up nothing: the call that crosses is admitted", async () => {
    const source = program(
      `    for (let i = 0; i < 2; i++) {\n      const to: string[] = [];\n      to[i] = "a@x.com";\n      try { await sendEmail({ to, subject: "s", body: "b" }); } catch {}\n    }`,
      `import { sendEmail } from "trusted/email";`,
    );
    const facts = analyzed(source)!;
    const [trace] = traces(source, [[]]);
    expect(trace!.calls.map((c) => c.args.to)).toEqual([["a@x.com"]]);
    expect(trace!.refused).toHaveLength(1);
    expect(violations(facts, [trace!], set)).toEqual([]);
    const { refusedAt } = await refusalUnder(source, () => undefined);
    expect(refusedAt).toBeNull();
  });

  it("a required input left undefined (an element of Array(n)) crosses as absent and is refused: grants carry the declared type", async () => {
    const source = program(
      `    for (const id of [...(Array(1) as string[])]) await getDraft({ id });`,
      `import { getDraft } from "trusted/email";`,
    );
    expect(analyzed(source)!.effects[0]!.args.id?.kind).toBe("unknown");
    const { refusedAt, error, calls } = await refusalUnder(source, () => undefined);
    expect(calls).toEqual([expect.objectContaining({ op: "email.get_draft", args: {} })]);
    expect(refusedAt).toBe(0);
    expect(error?.details).toEqual({ reason: "argument_refused", op: "email.get_draft", input: "id" });
  });

  it("a URL with a query string: the exact prefix is pinned, a wrong one refuses", async () => {
    const source = program(
      `    const note = await readFile({ path: "/home/user/Sandbox/q.txt" });\n    await get({ url: \`https://api.x.com/v1?q=\${String(note.content)}&n=*\` });`,
      `import { readFile } from "trusted/fs";\nimport { get } from "trusted/http";`,
    );
    const honest = analyzed(source)!;
    expect(honest.effects[1]?.args.url).toMatchObject({
      kind: "string",
      prefix: "https://api.x.com/v1?q=",
      suffix: "&n=*",
    });
    const passed = await refusalUnder(source, () => undefined, "a*b?c@d");
    expect(passed.refusedAt).toBeNull();
    expect(passed.calls[1]?.args.url).toBe("https://api.x.com/v1?q=a*b?c@d&n=*");
    const { refusedAt, error } = await refusalUnder(
      source,
      (f) =>
        (f.effects[1]!.args.url = { kind: "string", prefix: "https://api.x.com/v2?q=", suffix: "", provenance: [] }),
      "a*b?c@d",
    );
    expect(refusedAt).toBe(1);
    expect(error?.details).toEqual({ reason: "argument_refused", op: "http.get", input: "url" });
  });
});

/**
 * Facts whose value for one argument of the call `pick` chooses is a constant that call did not
 * send — when no other site of the op covers that value (a grant is the union of its sites).
 */
function wrongValue(facts: Facts, trace: Trace, pick: number): { facts: Facts; at: number } | undefined {
  if (trace.calls.length === 0) return undefined;
  const at = pick % trace.calls.length;
  const call = trace.calls[at]!;
  // An agent action's steps share its site: the effect is the call's op at the call's site.
  const effect = facts.effects.find(
    (e) => e.op === call.op && e.site.line === call.site.line && e.site.column === call.site.column,
  );
  const inputs = Object.keys(effect?.args ?? {});
  if (effect === undefined || inputs.length === 0) return undefined;
  const input = inputs[pick % inputs.length]!;
  const sent: Json = Object.hasOwn(call.args, input) ? call.args[input]! : null;
  const others = facts.effects.filter((e) => e !== effect && e.op === effect.op);
  if (others.some((e) => !Object.hasOwn(e.args, input) || contains(e.args[input]!, sent))) return undefined;
  const wrong: AbstractValue = {
    kind: "const",
    values: [Array.isArray(sent) ? ["zz-not-sent"] : sent === "zz-not-sent" ? "zz-other" : "zz-not-sent"],
  };
  // The grant joins the op's sites as the constraint language can (lists: one length range, one
  // element constraint), which may admit what no single site does: the wrong constant narrows the
  // grant only when that join no longer admits the value sent.
  const joined = constraintOf([...others.map((e) => e.args[input]!), wrong]);
  if (joined === undefined || satisfies(joined, sent)) return undefined;
  return { facts: withEffect(facts, effect, { ...effect, args: { ...effect.args, [input]: wrong } }), at };
}

/** Facts in which one site that ran as often as the facts allowed its op may run once fewer. */
function smallerCount(facts: Facts, trace: Trace, pick: number): { facts: Facts; at: number } | undefined {
  const tight = facts.effects.filter((e) => {
    const members = facts.effects.filter((m) => m.op === e.op);
    const total = members.reduce<number | null>(
      (sum, m) => (sum === null || m.count.max === null ? null : sum + m.count.max),
      0,
    );
    return e.count.max !== null && e.count.max > 0 && total === trace.calls.filter((c) => c.op === e.op).length;
  });
  if (tight.length === 0) return undefined;
  const effect = tight[pick % tight.length]!;
  const max = effect.count.max! - 1;
  const at = trace.calls.map((c) => c.op).lastIndexOf(effect.op);
  return { facts: withEffect(facts, effect, { ...effect, count: { min: Math.min(effect.count.min, max), max } }), at };
}

function withEffect(facts: Facts, old: Effect, changed: Effect): Facts {
  return { ...facts, effects: facts.effects.map((e) => (e === old ? changed : e)) };
}

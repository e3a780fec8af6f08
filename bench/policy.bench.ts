// Policy decision cost: decide() for a 20-effect program against a 50-rule policy, next to Cedar
// (cedar-wasm, the same 50 rules as preparsed Cedar policies) authorizing the 20 equivalent
// concrete requests, and next to the cheapest possible loop over the same rules.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  preparsePolicySet,
  statefulIsAuthorized,
  type StatefulAuthorizationCall,
} from "@cedar-policy/cedar-wasm/nodejs";
import { matchOp } from "../src/constraint/index.js";
import { loadManifests } from "../src/config/index.js";
import type { AbstractValue } from "../src/model/abstract.js";
import type { Effect, Facts } from "../src/model/facts.js";
import { packageRoot } from "../src/model/paths.js";
import { decide } from "../src/policy/decide.js";
import { loadPolicy } from "../src/config/index.js";
import { measure, table, writeSection } from "./report.js";

const HOME = "/home/me";
const set = loadManifests(join(packageRoot, "manifests"));

// 50 rules: 10 rounds of the same five shapes over different values, in TOML and in Cedar.
const toml: string[] = ['default = "ask"'];
const cedar: string[] = [];
for (let i = 0; i < 10; i++) {
  toml.push(
    `[[rules]]\nid = "deny-write-${i}"\ndecision = "deny"\nop = "fs.write_file"\nreason = "r"\nwhen = { args = { path = { under = "/etc/d${i}" } } }`,
    `[[rules]]\nid = "deny-host-${i}"\ndecision = "deny"\nop = "http.*"\nreason = "r"\nwhen = { args = { url = { host_in = ["evil${i}.com"] } } }`,
    `[[rules]]\nid = "ask-mail-${i}"\ndecision = "ask"\nop = "email.send_email"\nwhen = { args = { to = { glob = "*@team${i}.example.com" } } }`,
    `[[rules]]\nid = "allow-mail-${i}"\ndecision = "allow"\nop = "email.send_email"\nwhen = { args = { to = { in = ["user${i}@example.com", "me@example.com"] } } }`,
    `[[rules]]\nid = "allow-read-${i}"\ndecision = "allow"\nop = "fs.read_file"\nwhen = { args = { path = { under = "${HOME}/d${i}" } } }`,
  );
  cedar.push(
    `forbid (principal, action == Action::"fs.write_file", resource) when { context.path like "/etc/d${i}/*" };`,
    `forbid (principal, action in [Action::"http.get", Action::"http.post"], resource) when { ["evil${i}.com"].contains(context.host) };`,
    `@ask("true") permit (principal, action == Action::"email.send_email", resource) when { context.to.containsAny(["*@team${i}.example.com"]) };`,
    `permit (principal, action == Action::"email.send_email", resource) when { ["user${i}@example.com", "me@example.com"].containsAll(context.to) };`,
    `permit (principal, action == Action::"fs.read_file", resource) when { context.path like "${HOME}/d${i}/*" };`,
  );
}
const dir = mkdtempSync(join(tmpdir(), "countersign-bench-policy-"));
writeFileSync(join(dir, "bench.toml"), toml.join("\n\n") + "\n");
const policy = loadPolicy(dir, { manifests: set, home: HOME });
const loaded = preparsePolicySet("bench", { staticPolicies: cedar.join("\n") });
if (loaded.type !== "success") throw new Error(`cedar: ${JSON.stringify(loaded.errors)}`);

// 20 concrete effects: reads, mail and GETs, all allowed or asked, none denied (every rule is read).
// `tag` makes every path and URL a string not seen before (for the fresh-strings row).
type Request = { op: string; args: Record<string, string | string[]> };
function requestsFor(tag: string): Request[] {
  const requests: Request[] = [];
  for (let i = 0; i < 20; i++) {
    const k = i % 10;
    if (i % 3 === 0) requests.push({ op: "fs.read_file", args: { path: `${HOME}/d${k}/notes-${i}${tag}.txt` } });
    else if (i % 3 === 1)
      requests.push({ op: "email.send_email", args: { to: [`user${k}@example.com`], subject: "s", body: "b" } });
    else requests.push({ op: "http.get", args: { url: `https://api${k}.example.com/x${tag}` } });
  }
  return requests;
}
const c = (...values: string[]): AbstractValue => ({ kind: "const", values });
function factsOf(requests: Request[]): Facts {
  const effects: Effect[] = requests.map((r, i) => {
    const [connector, action] = r.op.split(".") as [string, string];
    const args = Object.fromEntries(
      Object.entries(r.args).map(([k, v]): [string, AbstractValue] => [
        k,
        Array.isArray(v) ? { kind: "array", element: c(...v), length: { min: v.length, max: v.length } } : c(v),
      ]),
    );
    return { op: r.op, connector, action, site: { line: i + 1, column: 1 }, args, count: { min: 1, max: 1 } };
  });
  return {
    program: { sha256: "0".repeat(64), entry: "bench.ts" },
    ok: true,
    diagnostics: [],
    effects,
    guarantees: [],
    summary: [],
    rationale: "",
  };
}
const requests = requestsFor("");
const facts = factsOf(requests);
const effects = facts.effects;

const calls: StatefulAuthorizationCall[] = requests.map((r) => ({
  principal: { type: "Agent", id: "agent" },
  action: { type: "Action", id: r.op },
  resource: { type: "Resource", id: "world" },
  context: r.op === "http.get" ? { host: new URL(r.args.url as string).hostname } : r.args,
  preparsedPolicySetId: "bench",
  entities: [],
}));
for (const call of calls) {
  const answer = statefulIsAuthorized(call);
  if (answer.type !== "success") throw new Error(`cedar: ${JSON.stringify(answer.errors)}`);
}

const samples = { samples: 41, inner: 20 };
// Both sides warm up alike first (JIT tiers, caches), so the medians compare steady states.
const warmUp = { samples: 50, inner: 20 };
await measure(() => decide(facts, policy, set), warmUp);
await measure(() => calls.map(statefulIsAuthorized), warmUp);
const ours = await measure(() => decide(facts, policy, set), samples);
const theirs = await measure(() => calls.map(statefulIsAuthorized), samples);
// The same program with every path and URL new on each call: nothing of the program's own
// strings is remembered from an earlier decision (the policy's constants still are).
const fresh = Array.from({ length: samples.samples * samples.inner }, (_, n) => factsOf(requestsFor(`-${n}`)));
let next = 0;
const ownStrings = await measure(() => decide(fresh[next++]!, policy, set), samples);
// Floor: only matching every rule's op against every effect, no conditions, no explanation.
const floor = await measure(() => effects.map((e) => policy.rules.filter((r) => matchOp(r.op, e.op)).length), samples);
const decision = decide(facts, policy, set);

const ms = (x: number) => (x >= 1 ? `${x.toFixed(2)} ms` : `${(x * 1000).toFixed(0)} µs`);
const body = `${table([
  ["what (20 effects, 50 rules)", "median", "vs Cedar"],
  ["baseline: Cedar statefulIsAuthorized, 20 concrete requests, 50 preparsed policies", ms(theirs), "1.00×"],
  [
    "countersign decide(): three-valued rules, guards, grants, explanations",
    ms(ours),
    `${(ours / theirs).toFixed(2)}×`,
  ],
  [
    "decide(), every path and URL of the program new to the process",
    ms(ownStrings),
    `${(ownStrings / theirs).toFixed(2)}×`,
  ],
  ["floor: op matching alone (rules × effects)", ms(floor), `${(floor / theirs).toFixed(2)}×`],
])}

Target: decide() in a tenth of Cedar's time (≤ 0.10×): ${ours / theirs <= 0.1 ? "met" : "not met"} in this run. The decision
here is \`${decision.kind}\` (${decision.effects.filter((e) => e.verdict === "allow").length} effects allowed, ${decision.effects.filter((e) => e.verdict === "ask").length} asked). Cedar answers permit/forbid per concrete request;
decide() answers for every run of the program at once, with a reason per effect. Medians of
${samples.samples} samples × ${samples.inner} calls, after ${warmUp.samples * warmUp.inner} warm-up calls of each side. URL host parsing and path
normalization are remembered per exact string (bounded), so a host or base path in the policy is
parsed once, and a program's URL once per decision rather than once per rule; the third row
shows the cost when none of the program's strings was seen before. explain() checks every rule,
decide() stops once the verdict is settled.`;
writeSection("policy", "Policy decisions", body);
process.stdout.write(body + "\n");

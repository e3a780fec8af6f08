import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { matchOp, satisfies, satisfiesCall, type Call } from "../../../src/constraint/index.js";
import type { ManifestSet } from "../../../src/manifest/manifest-set.js";
import type { PolicyDecision } from "../../../src/model/decision.js";
import type { Effect, Facts } from "../../../src/model/facts.js";
import type { Json } from "../../../src/model/json.js";
import { packageRoot } from "../../../src/model/paths.js";
import { loadPolicy } from "../../../src/config/index.js";
import { decide, type LoadedRule, type Policy } from "../../../src/policy/index.js";
import { checkCall, issueReceipt, jwks, verifyReceipt, type Keyring } from "../../../src/receipt/index.js";
import { openKeyring } from "../../../src/store/index.js";
import { contains } from "../soundness/contains.js";
import type { Probe } from "./case.js";
import type { ObservedCall, Trace } from "../support/concrete-runner.js";
import { effectOptions } from "../support/test-manifests.js";

/** What `~` means in the policies: the default policy's sandbox is HOME/Sandbox. */
export const HOME = "/home/u";
const ISSUER = "countersign-adversarial";

export interface EndToEnd {
  keyring: Keyring;
  policies: { name: string; policy: Policy }[];
}

/** Deny rules of the plain policy: conditions that name what is forbidden (a positive match). */
const PLAIN_DENY = `[[rules]]
id = "deny-rival-mail"
decision = "deny"
op = "email.send_email"
when = { args = { to = { glob = "*@rival.com" } } }
reason = "no mail to the rival"

[[rules]]
id = "deny-evil-host"
decision = "deny"
op = "http.*"
when = { args = { url = { host_in = ["evil.com"] } } }
reason = "never call evil.com"

[[rules]]
id = "deny-etc"
decision = "deny"
op = "fs.write_file"
when = { args = { path = { under = "/etc" } } }
reason = "never write system files"
`;

/**
 * The shipped default policy, and a plain one that allows every op by name (so a program is
 * auto-approved and its grants are all that stands between it and the world) except what three
 * deny rules name: mail to *@rival.com, any call to evil.com, writes under /etc; and mail goes
 * to distinct recipients only.
 */
export async function endToEnd(set: ManifestSet): Promise<EndToEnd> {
  const dir = mkdtempSync(join(tmpdir(), "countersign-adversarial-"));
  const plain = join(dir, "plain");
  mkdirSync(plain);
  // Mail is allowed to distinct recipients only: a condition the grants must carry too.
  const when = (op: string) => (op === "email.send_email" ? `when = { distinct = "to" }\n` : "");
  const allows = [...set.actions.keys()]
    .map((op) => `[[rules]]\nid = "allow-${op}"\ndecision = "allow"\nop = "${op}"\n${when(op)}`)
    .join("\n");
  writeFileSync(join(plain, "policy.toml"), `default = "ask"\n\n${PLAIN_DENY}\n${allows}`);
  const options = { manifests: set, home: HOME };
  return {
    keyring: await openKeyring(join(dir, "data")),
    policies: [
      { name: "default policy", policy: loadPolicy(join(packageRoot, "policies"), options) },
      { name: "plain policy", policy: loadPolicy(plain, options) },
    ],
  };
}

const siteKey = (s: { line: number; column: number }): string => `${s.line}:${s.column}`;

/**
 * The end-to-end step: decide the facts under each policy, issue and verify a receipt for every
 * decision that is not a rejection (auto_approved as such, ask as a person's approval), and feed
 * each concrete call of each run to `checkCall`. A call the receipt admits must be covered by the
 * facts (its site's effect contains its arguments, within the site's count), keep every proven
 * or enforced guarantee and every guard (the policy counted on them), fire no deny rule of the policy and, when nobody was asked, satisfy the allow rule
 * that passed its effect. `probes` stand for calls a wrong analysis would let a run make: each one
 * outside the facts must be refused. Each failure is an `end-to-end:` problem; a decision that
 * throws or gets no receipt is a `crash:`.
 */
export async function endToEndProblems(
  e2e: EndToEnd,
  set: ManifestSet,
  source: string,
  facts: Facts,
  traces: readonly Trace[],
  probes: readonly Probe[] = [],
): Promise<string[]> {
  const out: string[] = [];
  for (const { name, policy } of e2e.policies) {
    let decision: PolicyDecision;
    try {
      decision = decide(facts, policy, set);
    } catch (err) {
      out.push(`crash: ${name}: decide threw ${String(err)}`);
      continue;
    }
    if (decision.kind === "auto_rejected") continue;
    const auto = decision.kind === "auto_approved";
    let token: string;
    try {
      token = await issueReceipt(
        {
          requestId: "adversarial",
          program: facts.program,
          decision: auto ? "auto_approved" : "approved_once",
          policySha256: decision.policy.sha256,
          grants: decision.grants,
          across: decision.across,
          ...(auto ? {} : { approver: "alice" }),
          issuer: ISSUER,
        },
        e2e.keyring,
      );
    } catch (err) {
      out.push(`crash: ${name}: no receipt for a ${decision.kind} decision: ${String(err)}`);
      continue;
    }
    const options = { jwks: jwks(e2e.keyring), issuer: ISSUER, programBytes: Buffer.from(source, "utf8") };
    for (const [i, trace] of traces.entries()) {
      const verified = await verifyReceipt(token, options);
      const admitted: ObservedCall[] = [];
      for (const call of trace.calls) {
        if (!admits(verified, set, call)) continue;
        const why = wrongToAdmit(call, admitted, facts, decision, policy, set);
        admitted.push(call);
        for (const w of why)
          out.push(
            `end-to-end: ${name}, ${decision.kind}, run ${i + 1}: admitted ${call.op} at ${siteKey(call.site)} ${JSON.stringify(call.args)}: ${w}`,
          );
      }
    }
    for (const probe of probes) {
      const effects = facts.effects.filter((e) => e.op === probe.op);
      if (effects.length === 0) throw new Error(`probe ${probe.op}: the facts have no such effect`);
      const call: ObservedCall = { ...probe, site: effects[0]!.site };
      const covered = effects.some((e) => Object.keys(probe.args).every((input) => argCovered(e, call, input)));
      if (!covered && admits(await verifyReceipt(token, options), set, call)) {
        out.push(
          `end-to-end: ${name}, ${decision.kind}: the receipt admits the probe ${probe.op} ${JSON.stringify(probe.args)}, outside the facts ${JSON.stringify(effects.map((e) => e.args))}`,
        );
      }
    }
  }
  return out;
}

/** What the trusted wrapper does: every declared input present (null when left out), then checkCall. */
function admits(verified: Awaited<ReturnType<typeof verifyReceipt>>, set: ManifestSet, call: ObservedCall): boolean {
  const action = set.actions.get(call.op)!;
  const connector = set.connectors.get(action.connector)!;
  const args: Record<string, Json> = {};
  for (const input of action.manifest.inputs) args[input.name] = call.args[input.name] ?? null;
  try {
    checkCall(verified, { op: call.op, connector: { name: connector.name, sha256: connector.manifest.sha256 }, args });
    return true;
  } catch {
    return false;
  }
}

function wrongToAdmit(
  call: ObservedCall,
  before: readonly ObservedCall[],
  facts: Facts,
  decision: PolicyDecision,
  policy: Policy,
  set: ManifestSet,
): string[] {
  const out: string[] = [];
  const effect = facts.effects.find((e) => siteKey(e.site) === siteKey(call.site) && e.op === call.op);
  if (effect === undefined) out.push("no effect of the facts is at this site");
  else {
    const outside = Object.keys(call.args)
      .concat(Object.keys(effect.args))
      .filter((input, k, all) => all.indexOf(input) === k && !argCovered(effect, call, input));
    if (outside.length > 0)
      out.push(
        `outside the facts (${outside.map((input) => `${input} ${JSON.stringify(effect.args[input] ?? "absent")}`).join(", ")})`,
      );
    const n = before.filter((c) => siteKey(c.site) === siteKey(call.site)).length + 1;
    if (effect.count.max !== null && n > effect.count.max)
      out.push(`call ${n} at a site the facts say runs at most ${effect.count.max} times`);
  }
  const opts = effectOptions(set);
  const history: Call[] = before.map((c) => ({ op: c.op, args: c.args }));
  for (const g of facts.guarantees) {
    if (g.status !== "refuted" && !satisfiesCall(g.source, call, history, opts))
      out.push(`breaks the ${g.status} guarantee ${g.text}`);
  }
  for (const guard of decision.guards) {
    if (!satisfiesCall(guard, call, history, opts)) out.push(`breaks the run-time guard ${JSON.stringify(guard)}`);
  }
  const lists = new Set(
    (set.actions.get(call.op)?.manifest.inputs ?? []).filter((i) => i.type === "array").map((i) => i.name),
  );
  for (const rule of policy.rules) {
    if (rule.decision === "deny" && denies(rule, call, lists)) out.push(`fires deny rule ${rule.id}`);
  }
  if (decision.kind === "auto_approved") {
    const verdict = decision.effects.find((v) => siteKey(v.site) === siteKey(call.site) && v.op === call.op);
    const rule = policy.rules.find((r) => r.id === verdict?.rule);
    const condition = rule === undefined ? undefined : { op: rule.op, ...rule.when };
    if (condition !== undefined && !satisfiesCall(condition, call, history, opts))
      out.push(`auto-approved by allow rule ${rule!.id}, whose condition it fails`);
  }
  return out;
}

function argCovered(effect: Effect, call: ObservedCall, input: string): boolean {
  const claimed = Object.hasOwn(effect.args, input) ? effect.args[input] : undefined;
  const sent = Object.hasOwn(call.args, input) ? call.args[input]! : undefined;
  if (claimed === undefined) return sent === undefined;
  return contains(claimed, sent ?? null);
}

/** Whether a deny rule fires on one concrete call: every argument condition matches, on a list by some element. */
function denies(rule: LoadedRule, call: ObservedCall, lists: ReadonlySet<string>): boolean {
  if (!matchOp(rule.op, call.op)) return false;
  return Object.entries(rule.when?.args ?? {}).every(([input, c]) => {
    const value = call.args[input] ?? null;
    return lists.has(input) && Array.isArray(value)
      ? value.some((element) => satisfies(c, element))
      : satisfies(c, value);
  });
}

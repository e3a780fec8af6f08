import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseSubcommand } from "./parse-flags.js";
import { CountersignError } from "../model/index.js";
import { checkPolicy, ownAddresses } from "../config/index.js";
import { formatProblem } from "../policy/index.js";
import { explain, type Explanation } from "../policy/index.js";
import { formatDecision } from "../policy/index.js";
import type { AppContext } from "../app/index.js";
import { localContext } from "../app/index.js";
import { runPolicyTests } from "../app/index.js";
import { policyInForce, REMEMBERED_FILE, visibleText } from "../app/index.js";
import { requestManifests, simulatePolicy, type PolicySimulation } from "../app/index.js";
import type { Policy, PolicyProblem } from "../policy/index.js";
import { isPostgresUrl, SQLITE_FILE, type StoredRule } from "../store/index.js";
import { userInfo } from "node:os";
import { databaseFlag } from "./store-flag.js";
import { EXIT, shownPath, usageError, type Command, type Io } from "./command.js";
import { given, policyDirOf } from "./dirs.js";

const usage = `usage: countersign policy check [DIR] [--manifests DIR] [--json]
       countersign policy test [DIR] [--manifests DIR] [--json]
       countersign policy explain FILE [--policies DIR] [--manifests DIR] [--json]
       countersign policy list [--policies DIR] [--manifests DIR] [--database URL|FILE] [--json]
       countersign policy forget RULE_ID [--database URL|FILE] [--json]
       countersign policy simulate [--since DATE] [--policies DIR] [--manifests DIR] [--without-remembered]
                                   [--database URL|FILE] [--json]

check    validate the policy files of DIR (default: $COUNTERSIGN_HOME/policies when it exists,
         else the shipped policies) against the manifests; exit 2 with one line per problem.
test     run the cases in DIR/tests/*.toml (each a program and the decision it must get);
         prints PASS or FAIL per case, exit 1 if any fails.
explain  analyze FILE and show, for every effect, each rule whose op matches: whether it holds
         (yes, no, maybe) and why, the guards, and the decision.
list     every rule in force: those of the policy files, then those saved by "approve and
         remember" (kept in the authority's store), with their ids.
forget   remove a remembered rule: it stops applying at once (the audit log keeps that it did).
simulate decide the requests recorded in the store (since DATE, an ISO date or date-time) again
         with the policy of --policies DIR (default: the policy in force) plus the remembered
         rules (unless --without-remembered), and show each decision that would change and the
         calls that change it, then the totals. Changes nothing in the store.`;

/** `countersign policy`: check, test, explain, list and simulate the policy. */
const command: Command = {
  usage,
  async run(argv, io) {
    const json = argv.includes("--json");
    const {
      values,
      sub,
      args: [arg],
    } = parseSubcommand(argv, {
      options: {
        json: { type: "boolean" },
        manifests: { type: "string" },
        policies: { type: "string" },
        database: { type: "string" },
        since: { type: "string" },
        "without-remembered": { type: "boolean" },
      },
      subs: ["check", "test", "explain", "list", "forget", "simulate"],
      forms: "policy check | test | explain | list | forget | simulate",
      maxArgs: 1,
    });
    if (sub === "check" || sub === "test") {
      if (values.policies !== undefined)
        throw usageError(`policy ${sub} takes the policy directory as DIR, not --policies`);
      const dir = policyDirOf(io, arg);
      const ctx = localContext(io.env, given(io, values));
      try {
        return sub === "check" ? check(ctx, dir, io, json) : await test(ctx, dir, io, json);
      } finally {
        await ctx.close();
      }
    }
    if (sub === "explain") {
      if (arg === undefined) throw usageError("missing FILE: policy explain FILE");
      const ctx = localContext(io.env, given(io, values));
      return await explainFile(ctx, resolve(io.cwd, arg), io, json).finally(() => ctx.close());
    }
    if (sub !== "simulate" && (values.since !== undefined || values["without-remembered"] !== undefined))
      throw usageError(`--since and --without-remembered are for policy simulate`);
    if (sub === "simulate") {
      if (arg !== undefined) throw usageError(`unexpected argument "${arg}"`);
      return await simulate(io, values, json);
    }
    if (sub === "list" && arg !== undefined) throw usageError(`unexpected argument "${arg}"`);
    if (sub === "forget" && arg === undefined) throw usageError("missing RULE_ID: policy forget RULE_ID");
    const ctx = localContext(io.env, { ...given(io, values), ...databaseFlag(io, values.database) });
    try {
      return sub === "list" ? await list(ctx, io, json) : await forget(ctx, arg!, io, json);
    } finally {
      await ctx.close();
    }
  },
};

function check(ctx: AppContext, dir: string, io: Io, json: boolean): number {
  const { policy, problems } = checkPolicy(dir, {
    manifests: ctx.manifests(),
    home: ctx.home,
    ownAddresses: ownAddresses(ctx.dataDir),
  });
  if (json) {
    io.stdout(
      JSON.stringify(
        { ok: policy !== undefined, dir, rules: policy?.rules.length ?? 0, sha256: policy?.sha256 ?? null, problems },
        null,
        2,
      ) + "\n",
    );
  } else if (policy !== undefined) {
    io.stdout(
      `policy ok: ${policy.rules.length} rules in ${shownPath(io, dir)}, default ${policy.default}, sha256 ${policy.sha256}\n`,
    );
  } else {
    printProblems(io, dir, problems);
  }
  return policy === undefined ? EXIT.usage : EXIT.ok;
}

/** A policy folder's problems as `policy check` prints them: one `file:line: ...` a line, the count on stderr. */
function printProblems(io: Io, dir: string, problems: readonly PolicyProblem[]): void {
  for (const p of problems) io.stdout(formatProblem({ ...p, file: shownPath(io, p.file) }) + "\n");
  io.stderr(`${problems.length} problem${problems.length === 1 ? "" : "s"} in ${shownPath(io, dir)}\n`);
}

async function test(ctx: AppContext, dir: string, io: Io, json: boolean): Promise<number> {
  const results = await runPolicyTests(dir, {
    manifests: ctx.manifests(),
    home: ctx.home,
    ownAddresses: ownAddresses(ctx.dataDir),
    analyze: (source, entry) => ctx.analyze({ source, entry }),
  });
  const failed = results.filter((r) => !r.pass).length;
  if (json) {
    io.stdout(
      JSON.stringify({ ok: failed === 0, passed: results.length - failed, failed, cases: results }, null, 2) + "\n",
    );
  } else {
    for (const r of results) {
      const detail = r.pass ? "" : `\n    expected ${r.expected}, got ${r.actual}: ${r.why}`;
      io.stdout(`${r.pass ? "PASS" : "FAIL"} ${shownPath(io, r.file)}: ${r.name}${detail}\n`);
    }
    io.stdout(`${results.length - failed} passed, ${failed} failed\n`);
  }
  return failed === 0 ? EXIT.ok : EXIT.rejected;
}

async function explainFile(ctx: AppContext, file: string, io: Io, json: boolean): Promise<number> {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch (err) {
    throw new CountersignError("usage_error", "cli", `cannot read ${file}: ${(err as Error).message}`);
  }
  const facts = await ctx.analyze({ source, entry: file });
  const explanation = explain(facts, (await policyInForce(ctx)).policy, ctx.manifests());
  // The values and the calls that sources name are the agent's text: made visible before a terminal sees them.
  io.stdout(json ? JSON.stringify(explanation, null, 2) + "\n" : visibleText(formatExplanation(explanation)));
  return EXIT.ok;
}

async function list(ctx: AppContext, io: Io, json: boolean): Promise<number> {
  const { policy, dropped } = await policyInForce(ctx);
  const remembered = new Map((await ctx.rememberedRules()).map((r) => [r.id, r]));
  const rules = policy.rules.map((r) => ({
    id: r.id,
    decision: r.decision,
    op: r.op,
    from: r.file === REMEMBERED_FILE ? "remembered" : r.file,
    ...(remembered.has(r.id) ? rememberedFields(remembered.get(r.id)!) : {}),
  }));
  if (json) {
    io.stdout(JSON.stringify({ sha256: policy.sha256, default: policy.default, rules, dropped }, null, 2) + "\n");
    return EXIT.ok;
  }
  io.stdout(`policy ${policy.sha256} (default ${policy.default})\n`);
  for (const r of rules) {
    const from =
      r.from === "remembered"
        ? `remembered from request ${r.request_id}, for ${r.token === null ? "every agent" : `token ${r.token}`}, ${r.expires_at === null ? "until forgotten" : `until ${r.expires_at}`}`
        : shownPath(io, r.from);
    io.stdout(`${r.decision.padEnd(5)} ${r.op.padEnd(24)} ${r.id}  (${from})\n`);
  }
  for (const d of dropped) io.stdout(`not applied: remembered rule ${d.id}: ${d.why}\n`);
  return EXIT.ok;
}

/** Where a remembered rule came from, whom it applies to and until when. */
function rememberedFields(rule: StoredRule) {
  return {
    request_id: rule.request_id,
    saved_at: new Date(rule.created_at).toISOString(),
    token: rule.token,
    expires_at: rule.expires_at === null ? null : new Date(rule.expires_at).toISOString(),
  };
}

async function forget(ctx: AppContext, id: string, io: Io, json: boolean): Promise<number> {
  if (!(await (await ctx.store()).forgetRule(id, userInfo().username)))
    throw usageError(`no remembered rule ${id} (see countersign policy list)`);
  io.stdout(json ? JSON.stringify({ id, forgotten: true }, null, 2) + "\n" : `forgot ${id}: it no longer applies\n`);
  return EXIT.ok;
}

interface SimulateFlags {
  since?: string;
  policies?: string;
  manifests?: string;
  database?: string;
  "without-remembered"?: boolean;
}

/** `policy simulate`: reads the store, never writes it; a store that was never made is not made here. */
async function simulate(io: Io, values: SimulateFlags, json: boolean): Promise<number> {
  const since = values.since === undefined ? null : sinceDate(values.since);
  const remembered = values["without-remembered"] !== true;
  const dir = policyDirOf(io, values.policies);
  const database = databaseFlag(io, values.database);
  const ctx = localContext(io.env, { ...given(io, values), ...database });
  try {
    const { policy, problems } = checkPolicy(dir, { manifests: ctx.manifests(), home: ctx.home });
    if (policy === undefined) {
      if (json) io.stdout(JSON.stringify({ ok: false, dir, problems }, null, 2) + "\n");
      else printProblems(io, dir, problems);
      return EXIT.usage;
    }
    const file = database.database ?? join(ctx.dataDir, SQLITE_FILE);
    const stored = isPostgresUrl(file) || existsSync(file);
    const recorded = stored ? await (await ctx.store()).recordedSince(since?.getTime() ?? 0) : [];
    const tokens = [...new Set(recorded.flatMap((r) => ("request" in r ? [r.request.token] : [])))];
    const policies = new Map<string, Policy>();
    for (const token of tokens) policies.set(token, remembered ? (await policyInForce(ctx, token)).policy : policy);
    const { requests, totals } = simulatePolicy({
      recorded,
      policyFor: (token) => policies.get(token)!,
      manifestsOf: (request) => requestManifests(ctx, request),
    });
    const simulation: PolicySimulation = {
      policy: {
        dir,
        sha256: policy.sha256,
        remembered,
        dropped: remembered && stored ? (await policyInForce(ctx)).dropped : [],
      },
      since: since?.toISOString() ?? null,
      requests,
      totals,
    };
    // Headlines and reasons carry the agent's text: made visible before a terminal sees them.
    io.stdout(json ? JSON.stringify(simulation, null, 2) + "\n" : visibleText(formatSimulation(io, simulation)));
    return EXIT.ok;
  } finally {
    await ctx.close();
  }
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * `--since`: an ISO date (midnight UTC) or a date-time with its zone; a day that does not exist is refused, not rolled
 * over.
 */
function sinceDate(text: string): Date {
  const at = ISO_DATE.test(text) ? new Date(text.length === 10 ? `${text}T00:00:00Z` : text) : null;
  const day = text.slice(0, 10);
  const real = at !== null && !Number.isNaN(at.getTime()) && new Date(`${day}T00:00:00Z`).toISOString().startsWith(day);
  if (!real)
    throw usageError(
      `--since "${text}" is not an ISO date (2030-01-31) or date-time with its zone (2030-01-31T09:00:00Z)`,
    );
  return at;
}

const KIND_WORDS = { auto_approved: "auto-pass", ask: "ask", auto_rejected: "denied" } as const;

function formatSimulation(io: Io, s: PolicySimulation): string {
  const rememberedWords = s.policy.remembered ? "remembered rules included" : "remembered rules left out";
  const lines = [
    `policy ${shownPath(io, s.policy.dir)} (sha256 ${s.policy.sha256.slice(0, 12)}), ${rememberedWords}; requests ${s.since === null ? "of all time" : `since ${s.since}`}`,
  ];
  for (const d of s.policy.dropped) lines.push(`not applied: remembered rule ${d.id}: ${d.why}`);
  for (const r of s.requests) {
    if (r.problem !== null) {
      lines.push("", `${r.id}  ${r.created_at}  cannot replay: ${r.problem}`);
      continue;
    }
    if (!r.changed) continue;
    lines.push(
      "",
      `${r.id}  ${r.created_at}  ${KIND_WORDS[r.before!]} -> ${KIND_WORDS[r.after!]}  (${r.status}, token ${r.token})`,
      `  ${r.headline}`,
    );
    for (const c of r.rulings)
      lines.push(
        `  line ${c.line} ${c.op}: ${c.before === null ? "not recorded" : rulingWords(c.before)} -> ${rulingWords(c.after)}`,
      );
  }
  const tally = (t: PolicySimulation["totals"]["before"]) =>
    `${t.auto_approved} auto-pass, ${t.ask} ask, ${t.auto_rejected} denied`;
  const t = s.totals;
  if (t.requests === 0) lines.push("", "no requests recorded");
  else
    lines.push(
      "",
      `${t.requests} request${t.requests === 1 ? "" : "s"}: before ${tally(t.before)}; after ${tally(t.after)}; ${t.changed} changed, ${t.cannot_replay} cannot be replayed`,
    );
  return lines.join("\n") + "\n";
}

function rulingWords(r: { verdict: string; rule: string | null }): string {
  return r.rule === null ? `${r.verdict} (no rule: the default or a floor)` : `${r.verdict} by rule "${r.rule}"`;
}

function formatExplanation(e: Explanation): string {
  const lines = [
    `policy ${e.policy.sha256.slice(0, 12)} (${e.policy.files.length} files, default ${e.policy.default})`,
  ];
  if (e.refused !== null) lines.push(`refused before any rule was read: ${e.refused}`);
  for (const effect of e.effects) {
    lines.push("", `${effect.site.line}:${effect.site.column} ${effect.op}, ${effect.count} call(s)`);
    for (const [name, value] of Object.entries(effect.args))
      lines.push(`  ${name}: ${value}; comes from ${effect.sources[name]}`);
    lines.push(`  steered by data: ${effect.influencedBy}`);
    if (effect.rules.length === 0 && e.refused === null) lines.push("  no rule's op matches");
    for (const r of effect.rules) lines.push(`  ${r.holds.padEnd(5)} ${r.decision} rule "${r.id}" (${r.op}): ${r.why}`);
    lines.push(
      `  => ${effect.verdict.verdict}${effect.verdict.rule === null ? "" : ` by rule "${effect.verdict.rule}"`}: ${effect.verdict.why}`,
    );
  }
  return lines.join("\n") + "\n\n" + formatDecision(e.decision);
}

export default command;

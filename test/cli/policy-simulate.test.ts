import { cpSync, mkdtempSync, symlinkSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { decideRequest, localContext, PolicySimulation, submitRequest } from "../../src/app/index.js";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { packageRoot } from "../../src/model/paths.js";
import { SQLITE_FILE } from "../../src/store/index.js";
import { freshDatabase } from "../store/postgres-cluster.js";
import { isolatedEnv } from "../support/isolated-env.js";

const shippedPolicy = readFileSync(join(packageRoot, "policies", "default.toml"), "utf8");
const example = (name: string) => ({ source: readFileSync(join(packageRoot, "examples", name), "utf8"), entry: name });

/** A policy folder: the shipped policy with `extra` rules after it. */
function policyWith(extra: string): string {
  const dir = mkdtempSync(join(tmpdir(), "countersign-simulate-policy-"));
  writeFileSync(join(dir, "default.toml"), shippedPolicy + "\n" + extra);
  return dir;
}

const WIDER = `
[[rules]]
id = "email.any-recipient"
decision = "allow"
op = "email.send_email"
`;

const NARROWER = `
[[rules]]
id = "fs.no-reads"
decision = "deny"
op = "fs.read_file"
reason = "reads are closed this week"
`;

/** A data directory whose store holds three requests submitted through the real use case: one asks, one auto-passes, one is denied. */
async function recordedStore(extraEnv: NodeJS.ProcessEnv = {}) {
  const env = isolatedEnv(extraEnv);
  const ctx = localContext(env);
  try {
    const store = await ctx.store();
    const { name } = await store.addToken("agent");
    const ids: Record<string, string> = {};
    for (const file of ["notify-team.ts", "read-notes.ts", "write-outside-sandbox.ts"]) {
      ids[file] = (await submitRequest(ctx, { token: name, program: example(file) })).request.id;
    }
    const created = new Map((await store.list()).requests.map((r) => [r.id, r.created_at]));
    return { env, ids, created };
  } finally {
    await ctx.close();
  }
}

function capture(env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    readStdin: async () => "",
    env,
    cwd: packageRoot,
  };
  return { io, out: () => out.join(""), err: () => err.join("") };
}

async function simulate(env: NodeJS.ProcessEnv, ...args: string[]): Promise<PolicySimulation> {
  const c = capture(env);
  expect(await main(["policy", "simulate", "--json", ...args], c.io), c.err() + c.out()).toBe(0);
  return PolicySimulation.parse(JSON.parse(c.out()));
}

/** Every file of the data directory (the SQLite store and its journal among them), by name. */
function snapshot(dir: string): Map<string, Buffer> {
  return new Map(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => [join(e.parentPath, e.name), readFileSync(join(e.parentPath, e.name))]),
  );
}

describe("countersign policy simulate", () => {
  let recorded: Awaited<ReturnType<typeof recordedStore>>;
  beforeAll(async () => {
    recorded = await recordedStore();
  });

  it("with the policy in force nothing changes, and every request is counted", async () => {
    const s = await simulate(recorded.env);
    expect(s.policy).toMatchObject({ dir: join(packageRoot, "policies"), remembered: true, dropped: [] });
    expect(s.requests.map((r) => [r.id, r.before, r.after, r.changed])).toEqual([
      [recorded.ids["notify-team.ts"], "ask", "ask", false],
      [recorded.ids["read-notes.ts"], "auto_approved", "auto_approved", false],
      [recorded.ids["write-outside-sandbox.ts"], "auto_rejected", "auto_rejected", false],
    ]);
    const tally = { auto_approved: 1, ask: 1, auto_rejected: 1 };
    expect(s.totals).toEqual({ requests: 3, before: tally, after: tally, changed: 0, cannot_replay: 0 });
  });

  it("a wider policy turns the ask into an auto-pass and names the rule that does it", async () => {
    const s = await simulate(recorded.env, "--policies", policyWith(WIDER));
    const notify = s.requests.find((r) => r.id === recorded.ids["notify-team.ts"])!;
    expect(notify).toMatchObject({
      before: "ask",
      after: "auto_approved",
      changed: true,
      status: "pending",
      token: "agent",
    });
    expect(notify.headline).toMatch(/email/i);
    expect(notify.rulings).toEqual([
      {
        op: "email.send_email",
        line: 12,
        before: { verdict: "ask", rule: null },
        after: { verdict: "allow", rule: "email.any-recipient" },
      },
    ]);
    expect(s.totals).toMatchObject({ after: { auto_approved: 2, ask: 0, auto_rejected: 1 }, changed: 1 });

    const c = capture(recorded.env);
    expect(await main(["policy", "simulate", "--policies", policyWith(WIDER)], c.io)).toBe(0);
    expect(c.out()).toContain(`${recorded.ids["notify-team.ts"]}  `);
    expect(c.out()).toContain("ask -> auto-pass");
    expect(c.out()).toContain(
      'line 12 email.send_email: ask (no rule: the default or a floor) -> allow by rule "email.any-recipient"',
    );
    expect(c.out()).toMatch(
      /3 requests: before 1 auto-pass, 1 ask, 1 denied; after 2 auto-pass, 0 ask, 1 denied; 1 changed, 0 cannot be replayed\n$/,
    );
    expect(c.out()).not.toContain(recorded.ids["read-notes.ts"]); // unchanged requests are only counted
  });

  it("a narrower policy turns the auto-pass into a denial", async () => {
    const s = await simulate(recorded.env, "--policies", policyWith(NARROWER));
    const read = s.requests.find((r) => r.id === recorded.ids["read-notes.ts"])!;
    expect(read).toMatchObject({ before: "auto_approved", after: "auto_rejected", changed: true });
    expect(read.rulings.map((c) => [c.op, c.after])).toEqual([
      ["fs.read_file", { verdict: "deny", rule: "fs.no-reads" }],
    ]);
    expect(s.totals).toMatchObject({
      before: { auto_approved: 1 },
      after: { auto_approved: 0, ask: 1, auto_rejected: 2 },
      changed: 1,
    });
  });

  it("--since keeps the requests created at or after it; a date after them all keeps none", async () => {
    const [, second] = [...recorded.created.entries()].sort((a, b) => a[1] - b[1]);
    const since = new Date(second![1]).toISOString();
    const s = await simulate(recorded.env, "--since", since);
    const expected = [...recorded.created].filter(([, at]) => at >= second![1]).map(([id]) => id);
    expect(s.since).toBe(since);
    expect(s.requests.map((r) => r.id).sort()).toEqual(expected.sort());
    expect(s.requests.length).toBeLessThan(3);
    const none = await simulate(recorded.env, "--since", "2999-01-01");
    expect(none).toMatchObject({
      since: "2999-01-01T00:00:00.000Z",
      requests: [],
      totals: { requests: 0, changed: 0 },
    });
    const all = await simulate(recorded.env, "--since", "2000-01-01T00:00:00+02:00");
    expect(all.totals.requests).toBe(3);
  });

  it("a malformed --since is a usage error, exit 2", async () => {
    for (const bad of ["yesterday", "2030-02-31", "2030-01-01T10:00:00", "2030-13-01", ""]) {
      const c = capture(recorded.env);
      expect(await main(["policy", "simulate", "--since", bad], c.io), bad).toBe(2);
      expect(c.err()).toContain(`countersign: usage_error: --since "${bad}" is not an ISO date`);
    }
  });

  it("a malformed policy folder gives the errors policy check gives, exit 2", async () => {
    const dir = policyWith('[[rules]]\nid = "r1"\ndecision = "deny"\nop = "email.send_email"\n');
    const c = capture(recorded.env);
    expect(await main(["policy", "simulate", "--policies", dir], c.io)).toBe(2);
    const check = capture(recorded.env);
    expect(await main(["policy", "check", dir], check.io)).toBe(2);
    expect(c.out()).toBe(check.out());
    expect(c.out()).toMatch(/default\.toml:\d+: rule "r1": reason: a deny rule needs a reason/);
    expect(c.err()).toBe(check.err());
    const j = capture(recorded.env);
    expect(await main(["policy", "simulate", "--policies", dir, "--json"], j.io)).toBe(2);
    expect(JSON.parse(j.out())).toMatchObject({
      ok: false,
      dir,
      problems: [{ rule: "r1", field: "reason", line: expect.any(Number) }],
    });
  });

  it("flags of simulate are refused elsewhere, and simulate takes no argument", async () => {
    const c = capture(recorded.env);
    expect(await main(["policy", "list", "--since", "2030-01-01"], c.io)).toBe(2);
    expect(c.err()).toContain("--since and --without-remembered are for policy simulate");
    const d = capture(recorded.env);
    expect(await main(["policy", "simulate", "policies"], d.io)).toBe(2);
    expect(d.err()).toContain('unexpected argument "policies"');
  });

  it("changes nothing: the store file, its journal and the audit log are byte-identical after runs", async () => {
    const data = recorded.env.COUNTERSIGN_HOME!;
    const audit = async () => {
      const c = capture(recorded.env);
      expect(await main(["audit", "export", "--jsonl"], c.io)).toBe(0);
      return c.out();
    };
    const before = snapshot(data);
    const auditBefore = await audit();
    expect(before.has(join(data, SQLITE_FILE))).toBe(true);
    await simulate(recorded.env);
    await simulate(recorded.env, "--policies", policyWith(WIDER));
    await simulate(recorded.env, "--policies", policyWith(NARROWER), "--without-remembered");
    expect(snapshot(data)).toEqual(before);
    expect(await audit()).toBe(auditBefore);
  });

  it("a data directory without a store reports no requests and makes no store", async () => {
    const env = isolatedEnv();
    const s = await simulate(env);
    expect(s.totals.requests).toBe(0);
    expect(readdirSync(env.COUNTERSIGN_HOME!)).toEqual([]);
    const elsewhere = join(mkdtempSync(join(tmpdir(), "countersign-simulate-db-")), "none.db");
    expect((await simulate(env, "--database", elsewhere)).totals.requests).toBe(0);
    expect(readdirSync(join(elsewhere, ".."))).toEqual([]);
  });
});

describe("policy simulate over requests an older version wrote", () => {
  it("a row that no longer reads, or whose calls left the manifests, is listed as cannot replay, the others are replayed", async () => {
    const { env, ids } = await recordedStore();
    const db = new Database(join(env.COUNTERSIGN_HOME!, SQLITE_FILE));
    db.prepare("UPDATE requests SET facts = ? WHERE id = ?").run(
      JSON.stringify({ program: { sha256: "old" } }),
      ids["write-outside-sandbox.ts"],
    );
    db.close();
    // Manifests without email, and a policy without its rules: notify-team's send is no longer an action.
    const root = mkdtempSync(join(tmpdir(), "countersign-simulate-manifests-"));
    symlinkSync(join(packageRoot, "trusted"), join(root, "trusted")); // the connectors the manifests pin, where they name them
    const manifests = join(root, "manifests");
    for (const connector of ["fs", "http"])
      cpSync(join(packageRoot, "manifests", connector), join(manifests, connector), { recursive: true });
    const policies = mkdtempSync(join(tmpdir(), "countersign-simulate-policy-"));
    writeFileSync(
      join(policies, "p.toml"),
      'default = "ask"\n\n[[rules]]\nid = "fs.read"\ndecision = "allow"\nop = "fs.read_file"\n',
    );

    const s = await simulate(env, "--manifests", manifests, "--policies", policies);
    const byId = new Map(s.requests.map((r) => [r.id, r]));
    expect(byId.get(ids["write-outside-sandbox.ts"]!)).toMatchObject({
      before: null,
      after: null,
      problem: expect.stringMatching(/^the recorded facts\.program\.sha256 no longer reads: /),
    });
    expect(byId.get(ids["notify-team.ts"]!)).toMatchObject({
      before: "ask",
      after: null,
      problem: "email.send_email is no longer in the manifests in force",
    });
    expect(byId.get(ids["read-notes.ts"]!)).toMatchObject({ before: "auto_approved", problem: null });
    expect(s.totals).toMatchObject({ requests: 3, cannot_replay: 2 });

    const c = capture(env);
    expect(await main(["policy", "simulate", "--manifests", manifests, "--policies", policies], c.io)).toBe(0);
    expect(c.out()).toContain(`${ids["notify-team.ts"]}  `);
    expect(c.out()).toContain("cannot replay: email.send_email is no longer in the manifests in force");
    expect(c.out()).toContain("2 cannot be replayed");
  });
});

describe("policy simulate and a hostile row", () => {
  it("terminal control characters a row carries never reach the terminal raw", async () => {
    const { env, ids } = await recordedStore();
    const db = new Database(join(env.COUNTERSIGN_HOME!, SQLITE_FILE));
    db.prepare("UPDATE requests SET facts = ? WHERE id = ?").run(
      "\u001b]0;pwned\u0007\u001b[2J",
      ids["notify-team.ts"],
    );
    db.close();
    const c = capture(env);
    expect(await main(["policy", "simulate"], c.io)).toBe(0);
    expect(c.out()).toContain(`${ids["notify-team.ts"]}  `);
    expect(c.out()).toContain("cannot replay: the recorded row is not JSON where it must be");
    expect(c.out()).not.toMatch(/[\u001b\u0007]/);
  });
});

describe("policy simulate against PostgreSQL", () => {
  it("replays the requests of a PostgreSQL store, remembered rules included unless left out", async () => {
    const database = await freshDatabase();
    const { env, ids } = await recordedStore({ COUNTERSIGN_DATABASE: database });
    const s = await simulate(env, "--policies", policyWith(WIDER));
    expect(s.requests.find((r) => r.id === ids["notify-team.ts"])).toMatchObject({
      changed: true,
      after: "auto_approved",
    });

    // A person approves the ask and remembers it: that rule is part of the policy in force.
    const ctx = localContext(env);
    await decideRequest(ctx, ids["notify-team.ts"]!, { kind: "approved_remember", approver: "me" }).finally(() =>
      ctx.close(),
    );
    const remembered = await simulate(env);
    const notify = remembered.requests.find((r) => r.id === ids["notify-team.ts"])!;
    expect(notify).toMatchObject({ status: "approved", before: "ask", after: "auto_approved", changed: true });
    expect(notify.rulings[0]!.after.rule).toMatch(/^remembered\./);
    const without = await simulate(env, "--without-remembered");
    expect(without.policy.remembered).toBe(false);
    expect(without.totals.changed).toBe(0);
  });
});

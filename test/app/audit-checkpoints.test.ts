// Signed checkpoints of the audit chain: whoever can write the database cannot rewrite, cut or
// flip what the chain says without `audit verify` naming it, and no receipt is signed for an
// approval the signed chain does not hold. On SQLite and PostgreSQL.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  checkpointAuditChain,
  decideRequest,
  issueRequestReceipt,
  newestAuditCheckpoint,
  verifyAuditLog,
  type AppContext,
} from "../../src/app/index.js";
import { loadPolicy } from "../../src/config/index.js";
import type { AuditEntry } from "../../src/model/index.js";
import { packageRoot } from "../../src/model/paths.js";
import {
  checkpointKeys,
  generateKey,
  MemoryRedemptionStore,
  signCheckpoint,
  verifyCheckpoint,
} from "../../src/receipt/index.js";
import { CHECKPOINT_FILE, entryHash, fileKeyStore, type Store } from "../../src/store/index.js";
import { shippedManifests } from "../policy/helpers.js";
import { DIALECTS, newDatabase, opener, rawSql, submission, type DialectName } from "../store/fixtures.js";

const manifests = shippedManifests();
const policy = loadPolicy(join(packageRoot, "policies"), { manifests, home: "/home/user" });
const stores = opener();
afterAll(() => stores.closeAll());

interface Fixture {
  ctx: AppContext;
  store: Store;
  database: string;
  token: string;
}

async function fixture(dialect: DialectName): Promise<Fixture> {
  const dataDir = mkdtempSync(join(tmpdir(), "countersign-checkpoints-"));
  const database = await newDatabase(dialect);
  const store = await stores.open(database);
  const { name } = await store.addToken("agent");
  const ctx: AppContext = {
    dataDir,
    home: "/home/user",
    issuer: "countersign-test",
    now: () => new Date(),
    manifests: () => manifests,
    policy: () => policy,
    analyze: () => Promise.reject(new Error("these tests submit facts directly")),
    keys: fileKeyStore(dataDir),
    redemptions: new MemoryRedemptionStore(),
    store: async () => store,
    rememberedRules: () => store.listRememberedRules(),
  };
  return { ctx, store, database, token: name };
}

/** A pending request, as a person's decision finds it. */
async function pending(f: Fixture): Promise<string> {
  const submitted = await f.store.submit(submission(f.token, "ask"));
  if (!submitted.ok) throw new Error("not submitted");
  return submitted.request.id;
}

async function entries(store: Store): Promise<AuditEntry[]> {
  const all: AuditEntry[] = [];
  for await (const row of store.exportAudit()) all.push(row as unknown as AuditEntry);
  return all;
}

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * What an intruder with write access to the database does: change entry `id` with `edit`, then
 * recompute the hash of it and of every entry after it, and move the head, so that the chain on
 * its own verifies again.
 */
async function rewriteFrom(f: Fixture, id: number, edit: (entry: AuditEntry) => AuditEntry): Promise<void> {
  const all = await entries(f.store);
  let prev = all[id - 2]?.hash ?? "0".repeat(64);
  const statements: string[] = [];
  for (const original of all.slice(id - 1)) {
    const changed = original.id === id ? edit(original) : original;
    const { hash: _, ...fields } = { ...changed, prev_hash: prev };
    const hash = entryHash(fields);
    statements.push(
      `UPDATE audit SET actor = ${changed.actor === null ? "NULL" : quote(changed.actor)}, details = ${quote(JSON.stringify(changed.details))}, prev_hash = '${prev}', hash = '${hash}' WHERE id = ${changed.id};`,
    );
    prev = hash;
  }
  statements.push(`UPDATE audit_head SET last_hash = '${prev}' WHERE one = 1;`);
  await rawSql(f.database, statements.join("\n"));
}

const refusal = { class: "approval_denied", details: { reason: "decision_not_in_audit_chain" } };

describe.each(DIALECTS)("signed audit checkpoints on %s", (dialect) => {
  it("a decision signs the chain head, kept in the database and in a file anyone may read; the chain verifies against both", async () => {
    const f = await fixture(dialect);
    const id = await pending(f);
    await decideRequest(f.ctx, id, { kind: "approved_once", approver: "alice" });
    const head = await f.store.auditHead();
    const newest = await newestAuditCheckpoint(f.ctx);
    expect(newest).toMatchObject({ size: head.id, head: head.hash });
    const file = join(f.ctx.dataDir, CHECKPOINT_FILE);
    expect(readFileSync(file, "utf8")).toBe(newest!.jws + "\n");
    expect(statSync(file).mode & 0o777).toBe(0o644);
    const check = await verifyAuditLog(f.ctx);
    expect(check).toMatchObject({
      verification: { ok: true, entries: head.id },
      stored: 1,
      newestStored: head.id,
      outside: { from: file, size: head.id },
    });
    expect(await issueRequestReceipt(f.ctx, id)).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it("a later checkpoint goes to the file; an older one never replaces a newer one there", async () => {
    const f = await fixture(dialect);
    await decideRequest(f.ctx, await pending(f), { kind: "rejected", approver: "alice", reason: "no" });
    const file = join(f.ctx.dataDir, CHECKPOINT_FILE);
    const first = readFileSync(file, "utf8");
    await decideRequest(f.ctx, await pending(f), { kind: "rejected", approver: "alice", reason: "no" });
    const second = readFileSync(file, "utf8");
    expect(second).not.toBe(first);
    const keys = checkpointKeys((await f.ctx.keys.keyring(new Date())).keys);
    expect(verifyCheckpoint(second, keys).size).toBeGreaterThan(verifyCheckpoint(first, keys).size);
    // a database rolled back under the file to the first head: signing it again leaves the file's newer head
    const back = (await entries(f.store))[verifyCheckpoint(first, keys).size - 1]!;
    await rawSql(
      f.database,
      `DELETE FROM audit WHERE id > ${back.id}; UPDATE audit_head SET last_id = ${back.id}, last_hash = '${back.hash}' WHERE one = 1;
       DELETE FROM audit_checkpoints WHERE size > ${back.id};`,
    );
    expect(await checkpointAuditChain(f.ctx)).toMatchObject({ size: back.id });
    expect(readFileSync(file, "utf8")).toBe(second);
  });

  it("a request flipped from rejected to approved in the database gets no receipt, and the refusal is audited", async () => {
    const f = await fixture(dialect);
    const id = await pending(f);
    await decideRequest(f.ctx, id, { kind: "rejected", approver: "alice", reason: "not this" });
    await rawSql(
      f.database,
      `UPDATE requests SET status = 'approved', decision = 'approved_once', reason = NULL WHERE id = '${id}'`,
    );
    const err = await issueRequestReceipt(f.ctx, id).catch((e: unknown) => e);
    expect(err).toMatchObject({ ...refusal, retriable: false });
    expect((err as Error).message).toMatch(/records rejected by alice, the request says approved_once by alice/);
    const last = (await entries(f.store)).at(-1)!;
    expect(last).toMatchObject({ type: "receipt_refused", request_id: id, actor: "authority" });
    expect(await rawSql(f.database, `SELECT jti FROM receipts WHERE request_id = '${id}'`)).toEqual([]);
  });

  it("a pending request flipped to approved has no decision entry: no receipt", async () => {
    const f = await fixture(dialect);
    const id = await pending(f);
    await rawSql(
      f.database,
      `UPDATE requests SET status = 'approved', decision = 'approved_once', approver = 'mallory' WHERE id = '${id}'`,
    );
    await expect(issueRequestReceipt(f.ctx, id)).rejects.toMatchObject({
      ...refusal,
      message: expect.stringContaining("no audit entry records its decision"),
    });
  });

  it("a flip whose decision entry was rewritten in place, with every later hash recomputed, no longer matches the signed head: no receipt", async () => {
    const f = await fixture(dialect);
    const id = await pending(f);
    await decideRequest(f.ctx, id, { kind: "rejected", approver: "alice", reason: "not this" });
    await decideRequest(f.ctx, await pending(f), { kind: "rejected", approver: "bob", reason: "nor this" });
    const decided = (await entries(f.store)).find((e) => e.type === "decided" && e.request_id === id)!;
    await rewriteFrom(f, decided.id, (e) => ({ ...e, details: { kind: "approved_once" } }));
    await rawSql(
      f.database,
      `UPDATE requests SET status = 'approved', decision = 'approved_once', reason = NULL WHERE id = '${id}'`,
    );
    expect(await f.store.verifyAuditChain()).toMatchObject({ ok: true }); // the chain alone is fooled
    await expect(issueRequestReceipt(f.ctx, id)).rejects.toMatchObject({
      ...refusal,
      message: expect.stringContaining(`its decision's audit entry ${decided.id} is not in the verified chain`),
    });
  });

  it("two authorities on one database, each with its own key: a decision made at one gets its receipt at the other, and both verify", async () => {
    const a = await fixture(dialect);
    const bDir = mkdtempSync(join(tmpdir(), "countersign-checkpoints-"));
    const b: Fixture = { ...a, ctx: { ...a.ctx, dataDir: bDir, keys: fileKeyStore(bDir) } };
    const id = await pending(a);
    await decideRequest(b.ctx, id, { kind: "approved_once", approver: "bob" }); // signed with b's key only
    expect(await issueRequestReceipt(a.ctx, id)).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/); // a signs the head it verified, then issues
    const aKids = (await a.ctx.keys.keyring(new Date())).keys.map((k) => k.kid);
    const bKids = (await b.ctx.keys.keyring(new Date())).keys.map((k) => k.kid);
    expect(aKids.some((kid) => bKids.includes(kid))).toBe(false);
    expect(await a.store.checkpoints(aKids)).toHaveLength(1);
    expect(await a.store.checkpoints(bKids)).toHaveLength(1);
    for (const ctx of [a.ctx, b.ctx]) expect((await verifyAuditLog(ctx)).verification).toMatchObject({ ok: true });
  });

  it("an approval whose checkpoint in the database was replaced by one signed with another key gets no receipt", async () => {
    const f = await fixture(dialect);
    const id = await pending(f);
    await decideRequest(f.ctx, id, { kind: "approved_once", approver: "alice" });
    const head = await f.store.auditHead();
    const foreign = signCheckpoint({ size: head.id, head: head.hash, at: Date.now() }, await generateKey(new Date()));
    await rawSql(f.database, `UPDATE audit_checkpoints SET jws = '${foreign}'`);
    await expect(issueRequestReceipt(f.ctx, id)).rejects.toMatchObject({
      ...refusal,
      message: expect.stringMatching(/is forged: audit checkpoint refused \(unknown_kid\)/),
    });
  });

  it("a suffix rewritten with its hashes recomputed fails verify, naming where, against the database's checkpoints and then the file's", async () => {
    const f = await fixture(dialect);
    const first = await pending(f);
    await decideRequest(f.ctx, first, { kind: "rejected", approver: "alice", reason: "no" });
    const signedFirst = (await f.store.auditHead()).id;
    await decideRequest(f.ctx, await pending(f), { kind: "rejected", approver: "alice", reason: "no" });
    const size = (await f.store.auditHead()).id;
    const decided = (await entries(f.store)).find((e) => e.type === "decided" && e.request_id === first)!;
    await rewriteFrom(f, decided.id, (e) => ({ ...e, details: { kind: "approved_once" } }));

    const inDatabase = (await verifyAuditLog(f.ctx)).verification;
    expect(inDatabase).toMatchObject({ ok: false, reason: "checkpoint_mismatch", broken_id: signedFirst });
    expect(inDatabase.ok || inDatabase.message).toMatch(
      new RegExp(
        `^audit entry ${signedFirst} is not the one the signed checkpoint \\(in the database.*rewritten at an entry from 1 to ${signedFirst}$`,
      ),
    );

    // the intruder deletes the checkpoints it cannot re-sign: the file outside still holds the head
    await rawSql(f.database, "DELETE FROM audit_checkpoints");
    const outside = (await verifyAuditLog(f.ctx)).verification;
    expect(outside).toMatchObject({ ok: false, reason: "checkpoint_mismatch", broken_id: size });
    expect(outside.ok || outside.message).toContain(`(in ${join(f.ctx.dataDir, CHECKPOINT_FILE)}`);
  });

  it("the last entries deleted (and the head moved back) fail verify against the checkpoint kept outside", async () => {
    const f = await fixture(dialect);
    await decideRequest(f.ctx, await pending(f), { kind: "rejected", approver: "alice", reason: "no" });
    const size = (await f.store.auditHead()).id;
    const keep = (await entries(f.store))[size - 3]!;
    await rawSql(
      f.database,
      `DELETE FROM events WHERE id > ${keep.id}; DELETE FROM audit WHERE id > ${keep.id};
       UPDATE audit_head SET last_id = ${keep.id}, last_hash = '${keep.hash}' WHERE one = 1; DELETE FROM audit_checkpoints;`,
    );
    expect(await f.store.verifyAuditChain()).toMatchObject({ ok: true }); // the chain alone is fooled
    const { verification } = await verifyAuditLog(f.ctx);
    expect(verification).toMatchObject({ ok: false, reason: "truncated", broken_id: keep.id + 1 });
    expect(verification.ok || verification.message).toMatch(
      new RegExp(
        `^the chain ends at entry ${keep.id} but the signed checkpoint .* holds ${size} entries: entries ${keep.id + 1} to ${size} were deleted$`,
      ),
    );
  });

  it("a checkpoint with a bad signature, or signed with a key that is not the authority's, fails verify naming where it was kept", async () => {
    const f = await fixture(dialect);
    await decideRequest(f.ctx, await pending(f), { kind: "rejected", approver: "alice", reason: "no" });
    const head = await f.store.auditHead();
    const stranger = await generateKey(new Date());
    const foreign = signCheckpoint({ size: head.id, head: head.hash, at: Date.now() }, stranger);
    const given = join(f.ctx.dataDir, "given.jws");
    writeFileSync(given, foreign);
    const unknown = (await verifyAuditLog(f.ctx, { checkpoint: given })).verification;
    expect(unknown).toMatchObject({ ok: false, reason: "checkpoint_forged" });
    expect(unknown.ok || unknown.message).toMatch(
      new RegExp(`^the checkpoint in ${given} is forged: audit checkpoint refused \\(unknown_kid\\)`),
    );

    const ours = readFileSync(join(f.ctx.dataDir, CHECKPOINT_FILE), "utf8").trim();
    const [h, p] = ours.split(".");
    const claimed = Buffer.from(JSON.stringify({ size: head.id + 5, head: "f".repeat(64), at: Date.now() })).toString(
      "base64url",
    );
    writeFileSync(given, `${h}.${claimed}.${ours.split(".")[2]}`);
    const badSignature = (await verifyAuditLog(f.ctx, { checkpoint: given })).verification;
    expect(badSignature.ok || badSignature.message).toMatch(/forged: audit checkpoint refused \(bad_signature\)/);

    const kid = (JSON.parse(Buffer.from(h!, "base64url").toString()) as { kid: string }).kid;
    await rawSql(
      f.database,
      `INSERT INTO audit_checkpoints (size, kid, head, at, jws) VALUES (${head.id + 5}, '${kid}', '${"f".repeat(64)}', 0, '${h}.${claimed}.${p}')`,
    );
    const stored = (await verifyAuditLog(f.ctx)).verification;
    expect(stored.ok || stored.message).toMatch(
      /^the checkpoint in the database is forged: audit checkpoint refused \(bad_signature\)/,
    );
  });

  it("a checkpoint file the user names must exist", async () => {
    const f = await fixture(dialect);
    await expect(verifyAuditLog(f.ctx, { checkpoint: join(f.ctx.dataDir, "none.jws") })).rejects.toMatchObject({
      class: "usage_error",
    });
  });

  it("a checkpoint is not signed over a stretch that does not verify", async () => {
    const f = await fixture(dialect);
    await decideRequest(f.ctx, await pending(f), { kind: "rejected", approver: "alice", reason: "no" });
    const signed = await newestAuditCheckpoint(f.ctx);
    await pending(f);
    await rawSql(f.database, `UPDATE audit SET actor = 'mallory' WHERE id = ${signed!.size + 1}`);
    await expect(checkpointAuditChain(f.ctx)).rejects.toMatchObject({
      class: "store_error",
      details: { reason: "audit_chain_broken", since: signed!.size },
    });
    expect((await newestAuditCheckpoint(f.ctx))?.size).toBe(signed!.size);
  });
});

describe("checkpoint JWS", () => {
  it("verifies only its own form: a receipt-shaped or damaged token is refused as malformed", async () => {
    const key = await generateKey(new Date());
    const keys = checkpointKeys([key]);
    const jws = signCheckpoint({ size: 3, head: "a".repeat(64), at: 1 }, key);
    expect(verifyCheckpoint(jws, keys)).toMatchObject({ size: 3, head: "a".repeat(64), at: 1, kid: key.kid, jws });
    for (const bad of [
      42,
      "a.b",
      "x".repeat(5000),
      `${jws}.x`,
      jws.replace(/^[^.]+/, Buffer.from('{"alg":"none"}').toString("base64url")),
    ]) {
      expect(() => verifyCheckpoint(bad, keys)).toThrow(/audit checkpoint refused \(malformed\)/);
    }
    expect(() => signCheckpoint({ size: 0, head: "a".repeat(64), at: 1 }, key)).toThrow();
  });
});

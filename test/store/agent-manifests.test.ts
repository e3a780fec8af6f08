// Agent manifests kept with a request: their canonical text, checked against the hash the facts
// record when stored and at every load, on both stores; a database from before they were kept
// migrates and its requests still load.
import { afterAll, describe, expect, it } from "vitest";
import { migrate, MIGRATIONS, openPostgresDriver, openSqliteDriver, type Store } from "../../src/store/index.js";
import { DIALECTS, newDatabase, opener, rawSql, sha256, submission } from "./fixtures.js";

// The store keeps the text as given: it only checks it against the facts' hash.
const TEXT = '[["create_issue",{"name":"create_issue","description":"Open an issue."}]]';

function withManifests(token: string, text = TEXT, recorded = sha256(text)) {
  const input = submission(token);
  return { ...input, facts: { ...input.facts, agentManifests: { sha256: recorded } }, agent_manifests: text };
}

async function submitted(store: Store, input: ReturnType<typeof withManifests>) {
  const result = await store.submit(input);
  if (!result.ok) throw new Error("refused");
  return result.request;
}

describe.each(DIALECTS)("agent manifests on %s", (dialect) => {
  const stores = opener();
  afterAll(() => stores.closeAll());

  it("keeps the canonical text with the request, and gives it back after the store is reopened", async () => {
    const database = await newDatabase(dialect);
    const store = await stores.open(database);
    const { name } = await store.addToken("agent");
    const request = await submitted(store, withManifests(name));
    expect(request.agent_manifests).toBe(TEXT);
    expect((await store.get(request.id))?.agent_manifests).toBe(TEXT);
    const plain = await store.submit(submission(name));
    expect(plain.ok && plain.request.agent_manifests).toBeUndefined();

    await stores.closeAll();
    const again = await stores.open(database);
    expect((await again.get(request.id))?.agent_manifests).toBe(TEXT);
    expect((await again.list({ limit: 10 })).requests.find((r) => r.id === request.id)?.agent_manifests).toBe(TEXT);
    const audit = [];
    for await (const entry of again.exportAudit()) if (entry.request_id === request.id) audit.push(entry);
    expect(audit.find((e) => e.type === "submitted")?.details).toMatchObject({ agent_manifests_sha256: sha256(TEXT) });
  });

  it("refuses a submission whose text is missing, hashes to something else, or comes without a hash in the facts", async () => {
    const store = await stores.open(await newDatabase(dialect));
    const { name } = await store.addToken("agent");
    const { agent_manifests: _, ...missing } = withManifests(name);
    await expect(store.submit(missing)).rejects.toMatchObject({
      class: "usage_error",
      message: expect.stringMatching(/must be stored with the request/),
    });
    await expect(store.submit(withManifests(name, TEXT, sha256("other")))).rejects.toMatchObject({
      class: "usage_error",
      details: { reason: "agent_manifests_mismatch" },
    });
    await expect(store.submit({ ...submission(name), agent_manifests: TEXT })).rejects.toMatchObject({
      class: "usage_error",
      details: { reason: "agent_manifests_unexpected" },
    });
    expect((await store.list({ limit: 10 })).requests).toEqual([]);
  });

  it("a kept text changed behind the store's back does not load: store_error, never other manifests shown", async () => {
    const database = await newDatabase(dialect);
    const store = await stores.open(database);
    const { name } = await store.addToken("agent");
    const request = await submitted(store, withManifests(name));
    await rawSql(
      database,
      `UPDATE requests SET agent_manifests = '[["create_issue",{"name":"create_issue","description":"Something else."}]]' WHERE id = '${request.id}'`,
    );
    await expect(store.get(request.id)).rejects.toMatchObject({
      class: "store_error",
      details: { reason: "agent_manifests_mismatch", request_id: request.id },
    });
    await rawSql(database, `UPDATE requests SET agent_manifests = NULL WHERE id = '${request.id}'`);
    expect((await store.get(request.id))?.agent_manifests).toBeUndefined(); // as a request stored before texts were kept
  });

  it("a database from before migration 4 migrates; its requests load with only the hash", async () => {
    const database = await newDatabase(dialect);
    const driver = database.startsWith("postgres://")
      ? await openPostgresDriver(database)
      : await openSqliteDriver(database);
    const before = MIGRATIONS.filter((m) => m.version < 4);
    await migrate(driver, before);
    await driver.close();
    const id = "req_AAAAAAAAAAAAAAAAAAAAAA";
    const old = withManifests("agent");
    await rawSql(
      database,
      `INSERT INTO requests (id, token, status, source, facts, policy, created_at, deadline_at) VALUES ('${id}', 'agent', 'pending', '${old.source.replaceAll("'", "''")}', '${JSON.stringify(old.facts).replaceAll("'", "''")}', '${JSON.stringify(old.policy).replaceAll("'", "''")}', 1, 2)`,
    );
    const store = await stores.open(database);
    const request = await store.get(id);
    expect(request?.facts.agentManifests).toEqual({ sha256: sha256(TEXT) });
    expect(request?.agent_manifests).toBeUndefined();
  });
});

import { z } from "zod";
import { GivenText } from "../model/index.js";
import { change, DURABLE, type StoreContext } from "./change.js";

/** What one run gave its agent back, as the authority records it (GivenText, one row per run). */
export interface GivenRecord {
  token: string; // the submitter token whose run it was
  request_id: string;
  session?: string; // the agent's MCP session, where there is one
  texts: GivenText[];
}

const StoredTexts = z.array(GivenText);

/**
 * Record a run's untrusted output for its agent, once per request: a second record of the same
 * run is refused (false), so that what a run gave back is never rewritten. The audit entry
 * says how much was recorded, never the texts.
 */
export async function recordGiven(ctx: StoreContext, record: GivenRecord): Promise<boolean> {
  return change(
    ctx,
    async (c) => {
      const taken = await c.tx.all("SELECT 1 AS one FROM given_texts WHERE request_id = ?", [record.request_id]);
      if (taken.length > 0) return false;
      await c.tx.run("INSERT INTO given_texts (request_id, token, session, at, texts) VALUES (?, ?, ?, ?, ?)", [
        record.request_id,
        record.token,
        record.session ?? null,
        c.now,
        JSON.stringify(record.texts),
      ]);
      await c.audit({
        type: "output_recorded",
        request_id: record.request_id,
        actor: record.token,
        details: { untrusted_texts: record.texts.length },
      });
      return true;
    },
    DURABLE,
  );
}

/**
 * Parsed rows, by request: a row is never rewritten, so it is read and parsed once per process (the newest KEPT_ROWS).
 */
const parsedRows = new Map<string, readonly GivenText[]>();
const KEPT_ROWS = 10_000;
/** Rows read in one statement, well within both databases' bound on parameters. */
const READ_BATCH = 500;

/**
 * Every untrusted text the token's runs gave it back since `since` (ms since the epoch), oldest
 * first. The same objects for the same row on every call, so that what a later stage derives from
 * one can be kept with it.
 */
export async function givenTo(ctx: StoreContext, token: string, since: number): Promise<GivenText[]> {
  const ids = (
    await ctx.driver.read((q) =>
      q.all("SELECT request_id FROM given_texts WHERE token = ? AND at >= ? ORDER BY at, request_id", [token, since]),
    )
  ).map((r) => String(r.request_id));
  const missing = ids.filter((id) => !parsedRows.has(id));
  for (let start = 0; start < missing.length; start += READ_BATCH) {
    const batch = missing.slice(start, start + READ_BATCH);
    const rows = await ctx.driver.read((q) =>
      q.all(
        `SELECT request_id, texts FROM given_texts WHERE request_id IN (${batch.map(() => "?").join(", ")})`,
        batch,
      ),
    );
    for (const r of rows) {
      parsedRows.set(String(r.request_id), Object.freeze(StoredTexts.parse(JSON.parse(String(r.texts)))));
      if (parsedRows.size > KEPT_ROWS) parsedRows.delete(parsedRows.keys().next().value!);
    }
  }
  return ids.flatMap((id) => parsedRows.get(id) ?? []);
}

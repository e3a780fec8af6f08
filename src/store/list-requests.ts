import { ZodError } from "zod";
import { ListQuery, type StoredRequest } from "../model/index.js";
import type { StoreContext } from "./change.js";
import type { SqlValue } from "./driver.js";
import { parseInput } from "./parse-input.js";
import { loadRequest, REQUEST_COLUMNS, requestFromRow } from "./request-row.js";

/** `cursor` is absent on the last page. */
export interface RequestListPage {
  requests: StoredRequest[];
  cursor?: string;
}

/** Newest first, keyset pagination on the insertion order: a page is stable while new requests arrive. */
export async function listRequests(ctx: StoreContext, raw: ListQuery = {}): Promise<RequestListPage> {
  const query = parseInput(ListQuery, raw, "listing");
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (query.status !== undefined) {
    where.push("status = ?");
    params.push(query.status);
  }
  if (query.cursor !== undefined) {
    where.push("seq < ?");
    params.push(Number(query.cursor));
  }
  const filter = where.length === 0 ? "" : ` WHERE ${where.join(" AND ")}`;
  const rows = await ctx.driver.read((q) =>
    q.all(`SELECT ${REQUEST_COLUMNS} FROM requests${filter} ORDER BY seq DESC LIMIT ?`, [...params, query.limit + 1]),
  );
  const requests = rows.slice(0, query.limit).map(requestFromRow);
  const last = requests.at(-1);
  return rows.length > query.limit && last !== undefined ? { requests, cursor: String(last.seq) } : { requests };
}

/**
 * A recorded request as a replay reads it: checked, or why its row no longer reads as one (written by an older
 * version).
 */
export type RecordedRequest = { request: StoredRequest } | { id: string; created_at: number; problem: string };

/**
 * Every request created at or after `since` (ms since the epoch), oldest first. A row the schema
 * or the kept-manifests check refuses is answered with why, never thrown: one old row must not
 * hide the others.
 */
export async function recordedSince(ctx: StoreContext, since: number): Promise<RecordedRequest[]> {
  const rows = await ctx.driver.read((q) =>
    q.all(`SELECT ${REQUEST_COLUMNS} FROM requests WHERE created_at >= ? ORDER BY seq`, [since]),
  );
  return rows.map((row) => {
    try {
      return { request: requestFromRow(row) };
    } catch (err) {
      return { id: String(row.id), created_at: Number(row.created_at), problem: rowProblem(err) };
    }
  });
}

function rowProblem(err: unknown): string {
  if (err instanceof ZodError) {
    const issue = err.issues[0]!;
    return `the recorded ${issue.path.join(".")} no longer reads: ${issue.message}`;
  }
  if (err instanceof SyntaxError) return `the recorded row is not JSON where it must be: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

export async function getRequest(ctx: StoreContext, id: string): Promise<StoredRequest | null> {
  return ctx.driver.read((q) => loadRequest(q, id));
}

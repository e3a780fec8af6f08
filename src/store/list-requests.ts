import { ListQuery, type StoredRequest } from "../model/index.js";
import type { StoreContext } from "./change.js";
import type { SqlValue } from "./driver.js";
import { parseInput } from "./parse-input.js";
import { loadRequest, REQUEST_COLUMNS, requestFromRow } from "./request-row.js";

/** `cursor` is absent on the last page. */
export interface RequestPage {
  requests: StoredRequest[];
  cursor?: string;
}

/** Newest first, keyset pagination on the insertion order: a page is stable while new requests arrive. */
export async function listRequests(ctx: StoreContext, raw: ListQuery = {}): Promise<RequestPage> {
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

export async function getRequest(ctx: StoreContext, id: string): Promise<StoredRequest | null> {
  return ctx.driver.read((q) => loadRequest(q, id));
}

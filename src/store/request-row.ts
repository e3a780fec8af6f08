import { StoredRequest, type RequestStatus } from "../model/index.js";
import type { Queryer, Row } from "./driver.js";

export const REQUEST_COLUMNS =
  "seq, id, token, status, source, facts, policy, rationale, created_at, deadline_at, decision, approver, reason, feedback, decided_at";

/** A row back into a checked record: a row the schema refuses is an error, never a guess. */
export function requestFromRow(row: Row): StoredRequest {
  const decided = row.decision !== null && row.decision !== undefined;
  return StoredRequest.parse({
    id: row.id,
    seq: Number(row.seq),
    token: row.token,
    status: row.status,
    source: row.source,
    facts: JSON.parse(String(row.facts)),
    policy: JSON.parse(String(row.policy)),
    rationale: row.rationale ?? null,
    created_at: Number(row.created_at),
    deadline_at: Number(row.deadline_at),
    decision: decided
      ? { kind: row.decision, approver: row.approver ?? null, reason: row.reason ?? null, feedback: row.feedback ?? null, at: Number(row.decided_at) }
      : null,
  });
}

export async function loadRequest(q: Queryer, id: string): Promise<StoredRequest | null> {
  const row = (await q.all(`SELECT ${REQUEST_COLUMNS} FROM requests WHERE id = ?`, [id]))[0];
  return row === undefined ? null : requestFromRow(row);
}

/** The status a decision leaves a request in. */
export function statusOf(kind: NonNullable<StoredRequest["decision"]>["kind"]): RequestStatus {
  if (kind === "auto_approved" || kind === "approved_once" || kind === "approved_remember") return "approved";
  if (kind === "auto_rejected" || kind === "rejected") return "rejected";
  return "request_more";
}

import { CountersignError, StoredRequest, type RequestStatus } from "../model/index.js";
import { sha256Hex } from "./audit-chain.js";
import type { Queryer, Row } from "./driver.js";

export const REQUEST_COLUMNS =
  "seq, id, token, status, source, facts, policy, rationale, agent_manifests, created_at, deadline_at, decision, approver, reason, feedback, decided_at";

/**
 * A row back into a checked record: a row the schema refuses is an error, never a guess. Its
 * agent manifests must hash to what its facts record, so that what a person is shown is what the
 * receipt binds and a run executes.
 */
export function requestFromRow(row: Row): StoredRequest {
  const decided = row.decision !== null && row.decision !== undefined;
  const request = StoredRequest.parse({
    id: row.id,
    seq: Number(row.seq),
    token: row.token,
    status: row.status,
    source: row.source,
    facts: JSON.parse(String(row.facts)),
    policy: JSON.parse(String(row.policy)),
    rationale: row.rationale ?? null,
    ...(row.agent_manifests === null || row.agent_manifests === undefined
      ? {}
      : { agent_manifests: row.agent_manifests }),
    created_at: Number(row.created_at),
    deadline_at: Number(row.deadline_at),
    decision: decided
      ? {
          kind: row.decision,
          approver: row.approver ?? null,
          reason: row.reason ?? null,
          feedback: row.feedback ?? null,
          at: Number(row.decided_at),
        }
      : null,
  });
  checkKeptManifests(
    request.facts,
    request.agent_manifests,
    (message, reason) =>
      new CountersignError("store_error", "store", `request ${request.id}: ${message}`, {
        details: { reason, request_id: request.id },
      }),
  );
  return request;
}

/**
 * Agent manifests kept with a request hash to its facts' record of them, and are kept only when
 * the facts record some. A request stored before they were kept has the hash and no text: allowed.
 */
export function checkKeptManifests(
  facts: StoredRequest["facts"],
  text: string | undefined,
  error: (message: string, reason: string) => CountersignError,
): void {
  const recorded = facts.agentManifests?.sha256;
  if (text === undefined) return;
  if (recorded === undefined)
    throw error("agent manifests are kept but the facts record none", "agent_manifests_unexpected");
  if (sha256Hex(text) !== recorded)
    throw error(
      `the agent manifests kept do not hash to ${recorded}, the hash the facts (and so the receipt) record`,
      "agent_manifests_mismatch",
    );
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

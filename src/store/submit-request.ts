import { randomBytes } from "node:crypto";
import type { RecordedDecision, StoredRequest } from "../model/request.js";
import { SubmitInput } from "../model/request.js";
import { sha256Hex, sha256Json } from "./audit-chain.js";
import { change, type StoreContext } from "./change.js";
import { parseInput } from "./parse-input.js";
import { statusOf } from "./request-row.js";
import { insertReceipt } from "./receipts.js";
import { storeUsageError } from "./store-error.js";

export type SubmitResult = { ok: true; request: StoredRequest } | { ok: false; reason: "token_inactive" };

/** 128 random bits: request ids are not guessable. */
export function newRequestId(): string {
  return `req_${randomBytes(16).toString("base64url")}`;
}

/**
 * Record a new request with the authority's own analysis and policy decision: pending when the
 * policy asks a person, decided at once otherwise. The submitting token must still be active
 * inside the transaction, so a revoked token stops at once.
 */
export async function submitRequest(ctx: StoreContext, raw: SubmitInput): Promise<SubmitResult> {
  const input = parseInput(SubmitInput, raw, "submission");
  const { facts, policy } = input;
  if (sha256Hex(input.source) !== facts.program.sha256) {
    throw storeUsageError("the facts were not derived from this source: its sha256 differs from facts.program.sha256");
  }
  if (policy.kind === "auto_approved" && !facts.ok) throw storeUsageError("a program the analysis refused cannot be auto_approved");
  if (input.receipt !== undefined && (policy.kind !== "auto_approved" || input.id === undefined)) {
    throw storeUsageError("a receipt can be recorded with a submission only when it is auto_approved and names its id");
  }
  const id = input.id ?? newRequestId();
  return change(ctx, async (c) => {
    const token = (await c.tx.all("SELECT revoked_at FROM tokens WHERE name = ?", [input.token]))[0];
    if (token === undefined || token.revoked_at !== null) return { ok: false, reason: "token_inactive" };
    const decision: RecordedDecision | null =
      policy.kind === "ask" ? null : { kind: policy.kind, approver: null, reason: policy.reason, feedback: null, at: c.now };
    const status = decision === null ? "pending" : statusOf(decision.kind);
    const deadline = c.now + input.deadline_s * 1000;
    const [row] = await c.tx.all(
      `INSERT INTO requests (id, token, status, source, facts, policy, rationale, created_at, deadline_at, decision, reason, decided_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
      [id, input.token, status, input.source, JSON.stringify(facts), JSON.stringify(policy), input.rationale ?? null, c.now, deadline, decision?.kind ?? null, decision?.reason ?? null, decision?.at ?? null],
    );
    const submitted = await c.audit({
      type: "submitted",
      request_id: id,
      actor: input.token,
      details: { program_sha256: facts.program.sha256, entry: facts.program.entry, deadline_at: deadline },
    });
    await c.audit({
      type: "analyzed",
      request_id: id,
      actor: "authority",
      details: { facts_sha256: sha256Json(facts), policy_sha256: policy.policy.sha256, kind: policy.kind, reason: policy.reason },
    });
    if (decision === null) await c.event(submitted, "pending", status);
    else await c.event(await c.audit({ type: "decided", request_id: id, actor: "policy", details: { kind: decision.kind } }), "resolved", status);
    if (input.receipt !== undefined) await insertReceipt(c, id, input.receipt);
    const request: StoredRequest = {
      id,
      seq: Number(row?.seq),
      token: input.token,
      status,
      source: input.source,
      facts,
      policy,
      rationale: input.rationale ?? null,
      created_at: c.now,
      deadline_at: deadline,
      decision,
    };
    return { ok: true, request };
  });
}

import { ExternalAudit, type AuditEntry, type AuditVerification } from "../model/index.js";
import { change, type StoreContext } from "./change.js";
import type { Row } from "./driver.js";
import { parseInput } from "./parse-input.js";
import { verifyChain, type HeadToHold } from "./audit-chain.js";

const PAGE = 1000;

/** Append an entry the authority writes itself (preview shown, policy reloaded). */
export async function recordAudit(ctx: StoreContext, raw: ExternalAudit): Promise<AuditEntry> {
  const input = parseInput(ExternalAudit, raw, "audit entry");
  return change(ctx, (c) => {
    if (input.type === "preview_shown") {
      return c.audit({
        type: input.type,
        request_id: input.request_id,
        actor: input.actor,
        details: { preview_sha256: input.preview_sha256 },
      });
    }
    if (input.type === "receipt_refused") {
      return c.audit({
        type: input.type,
        request_id: input.request_id,
        actor: input.actor,
        details: { reason: input.reason },
      });
    }
    const { type, actor, ...details } = input;
    return c.audit({ type, request_id: null, actor, details });
  });
}

/** A row as it is, unchecked: verification decides whether it is a well-formed entry. */
function entryFromRow(row: Row): Record<string, unknown> {
  let details: unknown;
  try {
    details = JSON.parse(String(row.details));
  } catch {
    details = undefined;
  }
  return { ...row, id: Number(row.id), at: Number(row.at), details };
}

export async function chainHead(ctx: StoreContext): Promise<{ id: number; hash: string }> {
  const row = (await ctx.driver.read((q) => q.all("SELECT last_id, last_hash FROM audit_head WHERE one = 1")))[0];
  return { id: Number(row?.last_id ?? 0), hash: String(row?.last_hash ?? "") };
}

/** Entries from+1..upTo in id order, a page at a time, so that a long log never sits in memory whole. */
export async function* rows(ctx: StoreContext, upTo: number, from = 0): AsyncGenerator<Record<string, unknown>> {
  for (let after = from; after < upTo; ) {
    const page = await ctx.driver.read((q) =>
      q.all(
        "SELECT id, at, type, request_id, actor, details, prev_hash, hash FROM audit WHERE id > ? AND id <= ? ORDER BY id LIMIT ?",
        [after, upTo, PAGE],
      ),
    );
    if (page.length === 0) return;
    for (const row of page) yield entryFromRow(row);
    after = Number(page.at(-1)?.id);
  }
}

/**
 * `audit verify`: recompute the chain as far as the head when the check began, and name the first
 * broken entry; the chain must hold every one of `checkpoints` (signed heads, already verified).
 */
export async function verifyAuditChain(
  ctx: StoreContext,
  checkpoints: readonly HeadToHold[] = [],
): Promise<AuditVerification> {
  const head = await chainHead(ctx);
  return verifyChain(rows(ctx, head.id), { head, checkpoints });
}

/**
 * `audit export`: every entry in order, as stored (a tampered row is exported as it is, so that
 * verifying the export finds it too). One JSON object a line for `--jsonl`.
 */
export async function* exportAudit(ctx: StoreContext): AsyncGenerator<Record<string, unknown>> {
  yield* rows(ctx, (await chainHead(ctx)).id);
}

import { hash } from "node:crypto";
import { canonicalJson } from "../constraint/index.js";
import { AuditEntry, type AuditVerification } from "../model/index.js";
import type { Json } from "../model/index.js";

/** The `prev_hash` of the first entry. */
export const GENESIS_HASH = "0".repeat(64);

/** The sha256 of the UTF-8 of `text` (one-shot: no Hash object per entry). */
export function sha256Hex(text: string): string {
  return hash("sha256", text, "hex");
}

/** The sha256 of canonical JSON: equal values hash equally whatever their key order. */
export function sha256Json(value: Json): string {
  return sha256Hex(canonicalJson(value));
}

/**
 * An entry's hash: every field but `hash`, the previous entry's hash included, as canonical JSON
 * (sha256Json of those fields). The fields are few and known, so their sorted order is written
 * out here rather than sorted for every entry; only `details` goes through canonicalJson.
 */
export function entryHash(entry: Omit<AuditEntry, "hash">): string {
  return entryHashOf(entry, canonicalDetails(entry.details));
}

/**
 * canonicalJson(details), without its sorting and piecewise writing when JSON.stringify writes
 * the same text: one level of scalars, keys already in sorted order, as the store's writers build
 * the details of the entries every submission appends.
 */
export function canonicalDetails(details: Record<string, Json>): string {
  let previous: string | undefined;
  for (const key of Object.keys(details)) {
    const value = details[key];
    if (
      (previous !== undefined && key <= previous) ||
      value === undefined ||
      (value !== null && typeof value === "object")
    )
      return canonicalJson(details);
    previous = key;
  }
  return JSON.stringify(details);
}

/**
 * entryHash with the canonical JSON of the entry's details given: a writer stores that very text as the entry's
 * details.
 */
export function entryHashOf(entry: Omit<AuditEntry, "hash" | "details">, canonicalDetails: string): string {
  const { id, at, type, request_id, actor, prev_hash } = entry;
  const s = JSON.stringify;
  return sha256Hex(
    `{"actor":${s(actor)},"at":${s(at)},"details":${canonicalDetails},"id":${s(id)},"prev_hash":${s(prev_hash)},"request_id":${s(request_id)},"type":${s(type)}}`,
  );
}

/** A signed head the chain must hold: entry `size` has hash `head`. `from` names where it was kept, for messages. */
export interface HeadToHold {
  size: number;
  head: string;
  from: string;
}

export interface VerifyChainOptions {
  /** The chain head the store keeps: catches entries cut off the end. */
  head?: { id: number; hash: string };
  /** Signed heads the chain must hold, their signatures checked by the caller. */
  checkpoints?: readonly HeadToHold[];
  /** Where the entries given begin: after this entry, already verified (by default, the start of the chain). */
  from?: { id: number; hash: string };
}

/**
 * Recompute the chain from the first entry on, in id order, and name the first entry that breaks
 * it: unreadable, a hash that does not match its fields, a link to anything but its predecessor,
 * or a missing id. Checkpoints catch what the chain alone cannot: a suffix rewritten with its
 * hashes recomputed, or one cut off with the head moved back.
 * Works on the store's rows and on an exported JSONL file alike.
 */
export async function verifyChain(
  entries: Iterable<unknown> | AsyncIterable<unknown>,
  options: VerifyChainOptions = {},
): Promise<AuditVerification> {
  const { head, checkpoints = [] } = options;
  let count = 0;
  let prev = options.from ?? { id: 0, hash: GENESIS_HASH };
  const held = [...checkpoints].sort((a, b) => a.size - b.size);
  let next = 0; // the first checkpoint not yet reached
  const broken = (
    broken_id: number,
    reason: Extract<AuditVerification, { ok: false }>["reason"],
    message: string,
  ): AuditVerification => ({
    ok: false,
    entries: count,
    broken_id,
    reason,
    message,
  });
  for await (const raw of entries) {
    const expectedId = prev.id + 1;
    const parsed = AuditEntry.safeParse(raw);
    if (!parsed.success) {
      const id = (raw as { id?: unknown } | null)?.id;
      return broken(
        typeof id === "number" ? id : expectedId,
        "malformed",
        `audit entry ${typeof id === "number" ? id : expectedId} is not a well-formed entry`,
      );
    }
    const entry = parsed.data;
    if (entry.id !== expectedId)
      return broken(expectedId, "id_gap", `audit entry ${expectedId} is missing (the next one is ${entry.id})`);
    if (entry.prev_hash !== prev.hash)
      return broken(entry.id, "prev_hash_mismatch", `audit entry ${entry.id} does not link to entry ${prev.id}`);
    if (entryHash(entry) !== entry.hash)
      return broken(
        entry.id,
        "hash_mismatch",
        `audit entry ${entry.id} was changed: its hash does not match its contents`,
      );
    for (; next < held.length && held[next]!.size === entry.id; next++) {
      const checkpoint = held[next]!;
      if (checkpoint.head !== entry.hash) {
        const since = next === 0 ? 1 : held[next - 1]!.size + 1;
        return broken(
          entry.id,
          "checkpoint_mismatch",
          `audit entry ${entry.id} is not the one the signed checkpoint (${checkpoint.from}) holds: the chain was rewritten at an entry from ${since} to ${entry.id}`,
        );
      }
    }
    prev = { id: entry.id, hash: entry.hash };
    count++;
  }
  const beyond = held.at(-1);
  if (beyond !== undefined && beyond.size > prev.id) {
    return broken(
      prev.id + 1,
      "truncated",
      `the chain ends at entry ${prev.id} but the signed checkpoint (${beyond.from}) holds ${beyond.size} entries: entries ${prev.id + 1} to ${beyond.size} were deleted`,
    );
  }
  if (head !== undefined) {
    if (head.id > prev.id)
      return broken(prev.id + 1, "id_gap", `audit entries ${prev.id + 1} to ${head.id} are missing`);
    if (head.id < prev.id || head.hash !== prev.hash) {
      return broken(
        prev.id,
        "head_mismatch",
        `the chain head (entry ${head.id}) does not match the last entry ${prev.id}`,
      );
    }
  }
  return { ok: true, entries: count, head: prev.hash };
}

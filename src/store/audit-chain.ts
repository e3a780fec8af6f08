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
    if ((previous !== undefined && key <= previous) || value === undefined || (value !== null && typeof value === "object")) return canonicalJson(details);
    previous = key;
  }
  return JSON.stringify(details);
}

/** entryHash with the canonical JSON of the entry's details given: a writer stores that very text as the entry's details. */
export function entryHashOf(entry: Omit<AuditEntry, "hash" | "details">, canonicalDetails: string): string {
  const { id, at, type, request_id, actor, prev_hash } = entry;
  const s = JSON.stringify;
  return sha256Hex(
    `{"actor":${s(actor)},"at":${s(at)},"details":${canonicalDetails},"id":${s(id)},"prev_hash":${s(prev_hash)},"request_id":${s(request_id)},"type":${s(type)}}`,
  );
}

/**
 * Recompute the chain from the first entry on, in id order, and name the first entry that breaks
 * it: unreadable, a hash that does not match its fields, a link to anything but its predecessor,
 * or a missing id. `head` (the chain head the store keeps) catches entries cut off the end.
 * Works on the store's rows and on an exported JSONL file alike.
 */
export async function verifyChain(
  entries: Iterable<unknown> | AsyncIterable<unknown>,
  head?: { id: number; hash: string },
): Promise<AuditVerification> {
  let count = 0;
  let prev = { id: 0, hash: GENESIS_HASH };
  const broken = (broken_id: number, reason: Extract<AuditVerification, { ok: false }>["reason"], message: string): AuditVerification => ({
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
      return broken(typeof id === "number" ? id : expectedId, "malformed", `audit entry ${typeof id === "number" ? id : expectedId} is not a well-formed entry`);
    }
    const entry = parsed.data;
    if (entry.id !== expectedId) return broken(expectedId, "id_gap", `audit entry ${expectedId} is missing (the next one is ${entry.id})`);
    if (entry.prev_hash !== prev.hash) return broken(entry.id, "prev_hash_mismatch", `audit entry ${entry.id} does not link to entry ${prev.id}`);
    if (entryHash(entry) !== entry.hash) return broken(entry.id, "hash_mismatch", `audit entry ${entry.id} was changed: its hash does not match its contents`);
    prev = { id: entry.id, hash: entry.hash };
    count++;
  }
  if (head !== undefined) {
    if (head.id > prev.id) return broken(prev.id + 1, "id_gap", `audit entries ${prev.id + 1} to ${head.id} are missing`);
    if (head.id < prev.id || head.hash !== prev.hash) {
      return broken(prev.id, "head_mismatch", `the chain head (entry ${head.id}) does not match the last entry ${prev.id}`);
    }
  }
  return { ok: true, entries: count, head: prev.hash };
}

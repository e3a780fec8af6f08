import { z } from "zod";
import { HandleId, HeldValue, MAX_HELD_BYTES, type Json } from "../model/index.js";
import type { StoreContext } from "./change.js";
import { parseInput } from "./parse-input.js";

/** How long a held value stays readable by default: long enough for the agent's next programs. */
export const HANDLE_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** One held value to keep: whose it is (the submitter token's name) and which request's run gave it. */
export const HandleRow = HeldValue.extend({
  submitter: z.string().min(1),
  request_id: z.string().min(1),
  lifetime_ms: z.number().int().positive().optional(), // default HANDLE_LIFETIME_MS
}).refine((row) => new TextEncoder().encode(JSON.stringify(row.value)).length <= MAX_HELD_BYTES, {
  path: ["value"],
  message: `a held value's JSON may be at most ${MAX_HELD_BYTES} bytes`,
});
export type HandleRow = z.infer<typeof HandleRow>;

/** A held value as read back by its submitter. */
export interface StoredHandle {
  id: string;
  request_id: string;
  from: string[];
  path: string;
  value: Json;
  expires_at: number; // ms since the epoch
}

/**
 * Keep the values a run held back, all in one transaction. Expired rows are removed on the way: nobody may read them.
 */
export async function putHandles(ctx: StoreContext, raw: readonly HandleRow[]): Promise<void> {
  const rows = parseInput(z.array(HandleRow), raw, "handles");
  if (rows.length === 0) return;
  const now = ctx.now();
  await ctx.driver.write(
    async (tx) => {
      await tx.run("DELETE FROM handles WHERE expires_at <= ?", [now]);
      await tx.insert(
        "handles (id, submitter, request_id, from_ops, path, value, created_at, expires_at)",
        rows.map((r) => [
          r.id,
          r.submitter,
          r.request_id,
          JSON.stringify(r.from),
          r.path,
          JSON.stringify(r.value),
          now,
          now + (r.lifetime_ms ?? HANDLE_LIFETIME_MS),
        ]),
      );
    },
    { keepsCachedReads: true },
  );
}

/**
 * The held value `id` of `submitter`; undefined when unknown, another submitter's, or expired (the three look alike to
 * the caller).
 */
export async function readHandle(ctx: StoreContext, id: string, submitter: string): Promise<StoredHandle | undefined> {
  if (!HandleId.safeParse(id).success) return undefined;
  const rows = await ctx.driver.read((q) =>
    q.all(
      "SELECT id, request_id, from_ops, path, value, expires_at FROM handles WHERE id = ? AND submitter = ? AND expires_at > ?",
      [id, submitter, ctx.now()],
    ),
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    id: String(row.id),
    request_id: String(row.request_id),
    from: JSON.parse(String(row.from_ops)) as string[],
    path: String(row.path),
    value: JSON.parse(String(row.value)) as Json,
    expires_at: Number(row.expires_at),
  };
}

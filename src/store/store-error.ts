import { CountersignError } from "../model/index.js";

/**
 * Anything the database throws becomes a store_error (503 at the HTTP boundary): the caller
 * must not go on as if the change had happened. Our own typed errors pass through unchanged.
 */
export function asStoreError(what: string, err: unknown): CountersignError {
  if (err instanceof CountersignError) return err;
  const why = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown } | null)?.code;
  return new CountersignError("store_error", "store", `${what}: ${why}`, {
    retriable: true,
    cause: err,
    ...(typeof code === "string" ? { details: { code } } : {}),
  });
}

/** A caller's mistake (bad input to a store operation): usage_error, nothing written. */
export function storeUsageError(message: string, details?: Record<string, unknown>): CountersignError {
  return new CountersignError("usage_error", "store", message, details === undefined ? {} : { details });
}

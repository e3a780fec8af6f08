import { CountersignError } from "../model/index.js";

/** The one error for a request (or receipt) that is not there, or not the caller's to see. */
export function notFound(what: string, id: string): CountersignError {
  return new CountersignError("usage_error", "authority", `no ${what} ${id}`, {
    requestId: id,
    details: { reason: "not_found" },
  });
}

/** A change refused because the request is no longer in the state it needs. */
export function conflict(id: string, message: string, details: Record<string, unknown> = {}): CountersignError {
  return new CountersignError("usage_error", "authority", message, {
    requestId: id,
    details: { reason: "conflict", ...details },
  });
}

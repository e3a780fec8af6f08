import { CountersignError, toEnvelope, type ErrorEnvelope } from "../model/index.js";

/**
 * The HTTP status of an error, from its class and `details.reason`: what the caller did wrong
 * (4xx) or what the authority cannot do now (503, retriable), never a 200 that hides it.
 */
export function httpStatus(err: unknown): number {
  if (!(err instanceof CountersignError)) return 500;
  const reason = err.details?.reason;
  switch (err.class) {
    case "usage_error":
      return (
        (
          {
            not_found: 404,
            conflict: 409,
            cannot_remember: 422,
            unsupported_media_type: 415,
            too_large: 413,
            no_route: 404,
          } as Record<string, number>
        )[String(reason)] ?? 400
      );
    case "analysis_rejected":
      return 422;
    case "capability_denied":
      return reason === "unauthenticated" ? 401 : reason === "misdirected" ? 421 : 403;
    case "approval_denied":
    case "receipt_invalid":
      return 409;
    case "resource_limit_exceeded":
      return reason === "too_large" ? 413 : 503;
    case "store_error":
    case "config_error":
      return 503;
    default:
      return err.retriable ? 503 : 500; // e.g. shutting down, an analysis thread that died
  }
}

/** The envelope of docs/architecture.md section 12 for anything thrown while answering a request. */
export function errorBody(err: unknown): ErrorEnvelope {
  return toEnvelope(err, "authority");
}

/** A request the authority refuses to serve: who is calling, from where, or how. */
export function denied(
  message: string,
  reason: "unauthenticated" | "forbidden" | "misdirected" | "csrf" | "origin",
  details: Record<string, unknown> = {},
): CountersignError {
  return new CountersignError("capability_denied", "authority", message, { details: { reason, ...details } });
}

export function badRequest(message: string, reason?: string, details: Record<string, unknown> = {}): CountersignError {
  return new CountersignError("usage_error", "authority", message, {
    details: reason === undefined ? details : { reason, ...details },
  });
}

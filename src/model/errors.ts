import { z } from "zod";

/** The closed set of error classes (DESIGN.md section 12). Adding one is a design change. */
export const ErrorClass = z.enum([
  "analysis_rejected",
  "policy_denied",
  "approval_denied",
  "approval_timeout",
  "receipt_invalid",
  "grant_violation",
  "capability_denied",
  "resource_limit_exceeded",
  "connector_error",
  "network_error",
  "external_api_error",
  "hash_mismatch",
  "config_error",
  "store_error",
  "usage_error",
  "internal_error",
]);
export type ErrorClass = z.infer<typeof ErrorClass>;

/** Which side of the system raised the error: lets a caller tell its own mistakes from the world's. */
export const Boundary = z.enum([
  "cli",
  "manifest",
  "analysis",
  "policy",
  "receipt",
  "connector",
  "sandbox",
  "authority",
  "store",
  "provider",
]);
export type Boundary = z.infer<typeof Boundary>;

export const ErrorBody = z.object({
  class: ErrorClass,
  message: z.string(),
  retriable: z.boolean(),
  boundary: Boundary,
  request_id: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The one error envelope every boundary (CLI --json, HTTP, MCP) emits. */
export const ErrorEnvelope = z.object({ error: ErrorBody });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

export interface ErrorOptions {
  retriable?: boolean;
  requestId?: string;
  details?: Record<string, unknown>;
  cause?: unknown;
}

/** A typed error with a stable class; everything countersign throws on purpose is one of these. */
export class CountersignError extends Error {
  readonly class: ErrorClass;
  readonly boundary: Boundary;
  readonly retriable: boolean;
  readonly requestId: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(errorClass: ErrorClass, boundary: Boundary, message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CountersignError";
    this.class = errorClass;
    this.boundary = boundary;
    this.retriable = options.retriable ?? false;
    this.requestId = options.requestId;
    this.details = options.details;
  }

  toEnvelope(): ErrorEnvelope {
    const body: ErrorBody = {
      class: this.class,
      message: this.message,
      retriable: this.retriable,
      boundary: this.boundary,
    };
    if (this.requestId !== undefined) body.request_id = this.requestId;
    if (this.details !== undefined) body.details = this.details;
    return { error: body };
  }
}

/** Wrap anything thrown into the envelope; unknown throws become internal_error, never a silent pass. */
export function toEnvelope(err: unknown, boundary: Boundary = "cli"): ErrorEnvelope {
  if (err instanceof CountersignError) return err.toEnvelope();
  const message = err instanceof Error ? err.message : String(err);
  return { error: { class: "internal_error", message, retriable: false, boundary } };
}

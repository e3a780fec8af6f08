// The error class and its codes without zod: `countersign check` through an authority imports
// this on its path, where loading zod would cost more than the whole call. The schemas
// of the same shapes are in errors.ts, built from these lists.

/** The closed set of error classes (docs/architecture.md section 12). Adding one is a design change. */
export const ERROR_CLASSES = [
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
  "credential_error",
  "store_error",
  "usage_error",
  "internal_error",
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** Which side of the system raised the error: lets a caller tell its own mistakes from the world's. */
export const BOUNDARIES = [
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
] as const;
export type Boundary = (typeof BOUNDARIES)[number];

export interface ErrorBody {
  class: ErrorClass;
  message: string;
  retriable: boolean;
  boundary: Boundary;
  request_id?: string | undefined;
  details?: Record<string, unknown> | undefined;
}

/** The one error envelope every boundary (CLI --json, HTTP, MCP) emits. */
export interface ErrorEnvelope {
  error: ErrorBody;
}

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

/**
 * `value` as the error envelope it is, or undefined when it is not one: the same rule as the
 * ErrorEnvelope schema (a test holds them to it), in plain code for the clients that load no zod.
 * Unknown fields are dropped, as the schema drops them.
 */
export function readErrorEnvelope(value: unknown): ErrorEnvelope | undefined {
  if (!isRecord(value) || !isRecord(value.error)) return undefined;
  const { class: errorClass, message, retriable, boundary, request_id, details } = value.error;
  if (
    !(ERROR_CLASSES as readonly unknown[]).includes(errorClass) ||
    !(BOUNDARIES as readonly unknown[]).includes(boundary)
  )
    return undefined;
  if (typeof message !== "string" || typeof retriable !== "boolean") return undefined;
  if (request_id !== undefined && typeof request_id !== "string") return undefined;
  if (details !== undefined && !isRecord(details)) return undefined;
  const body: ErrorBody = { class: errorClass as ErrorClass, message, retriable, boundary: boundary as Boundary };
  if (request_id !== undefined) body.request_id = request_id;
  if (details !== undefined) body.details = details;
  return { error: body };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

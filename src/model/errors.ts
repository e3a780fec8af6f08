import { z } from "zod";
import { BOUNDARIES, ERROR_CLASSES, type ErrorBody as PlainErrorBody } from "./errors-plain.js";

// The error class and everything that needs no zod live in errors-plain.ts; this module adds the
// schemas of the same shapes and keeps one import for both.
export {
  BOUNDARIES,
  CountersignError,
  ERROR_CLASSES,
  readErrorEnvelope,
  toEnvelope,
  type ErrorOptions,
} from "./errors-plain.js";

export const ErrorClass = z.enum(ERROR_CLASSES);
export type ErrorClass = z.infer<typeof ErrorClass>;

export const Boundary = z.enum(BOUNDARIES);
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

// The schema's type and the plain one are the same shape: a change to one that the other misses fails the type check.
const sameBody: [ErrorBody, PlainErrorBody] extends [PlainErrorBody, ErrorBody] ? true : never = true;
void sameBody;

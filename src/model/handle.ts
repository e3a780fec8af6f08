import { z } from "zod";
import { Json } from "./json.js";

/** A quarantined result's id: what the agent passes to `fromHandle`. */
export const HandleId = z
  .string()
  .regex(/^h_[A-Za-z0-9_-]{1,64}$/, "must be h_ followed by letters, digits, '_' or '-'");
export type HandleId = z.infer<typeof HandleId>;

export const HeldType = z.enum(["string", "number", "boolean", "null", "array", "object"]);
export type HeldType = z.infer<typeof HeldType>;

/**
 * What the agent sees in place of a quarantined value: trusted words about it, never its data.
 * `length` is a string's length, an array's length, or else the value's JSON length in bytes.
 */
export const HandleDescription = z
  .object({
    $handle: HandleId,
    type: HeldType,
    length: z.number().int().nonnegative(),
    from: z.array(z.string()), // the ops whose results it may derive from
  })
  .strict();
export type HandleDescription = z.infer<typeof HandleDescription>;

/** The most JSON text one held value may be: the sandbox's default cap on main's value. */
export const MAX_HELD_BYTES = 64 * 1024;

/** A quarantined value the authority keeps for the submitter, with where it stood in the run's output. */
export const HeldValue = z
  .object({
    id: HandleId,
    value: Json,
    from: z.array(z.string()),
    path: z.string(), // "$.items[2].body" in the value, "logs[0]" a log line, "thrown" the error's message
  })
  .strict();
export type HeldValue = z.infer<typeof HeldValue>;

/** `GET /v1/handles/:id`: a held value as its own submitter's runner reads it, to hand to the program. */
export const HandleView = z
  .object({
    id: HandleId,
    value: Json,
    from: z.array(z.string()),
    request_id: z.string(),
    expires_at: z.string(), // ISO 8601
  })
  .strict();
export type HandleView = z.infer<typeof HandleView>;

/** The ids of the handle descriptions in a value as shown to the agent, in order, without repeats. */
export function handlesIn(value: Json): string[] {
  const ids = new Set<string>();
  const visit = (v: Json): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v !== null && typeof v === "object") {
      const described = HandleDescription.safeParse(v);
      if (described.success) ids.add(described.data.$handle);
      else Object.values(v).forEach(visit);
    }
  };
  visit(value);
  return [...ids];
}

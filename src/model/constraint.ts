import { z } from "zod";
import { Json, JsonPrimitive } from "./json.js";

/**
 * The one constraint language (DESIGN.md section 6), shared by program guarantees, policy rule
 * conditions and receipt grants. Exactly one key per value constraint; `.strict()` so a typo such
 * as `{ under_: "/x" }` is an error rather than a constraint that silently matches everything.
 */
export type ValueConstraint =
  | { eq: Json }
  | { in: Json[] }
  | { not_in: Json[] }
  | { under: string }
  | { glob: string }
  | { host_in: string[] }
  | { max_length: number }
  | { all: ValueConstraint[] }
  | { any: ValueConstraint[] }
  | { not: ValueConstraint };

const absolutePath = z.string().refine((p) => p.startsWith("/"), "must be an absolute path");

export const ValueConstraint: z.ZodType<ValueConstraint> = z.lazy(() =>
  z.union([
    z.object({ eq: Json }).strict(),
    z.object({ in: z.array(Json) }).strict(),
    z.object({ not_in: z.array(Json) }).strict(),
    z.object({ under: absolutePath }).strict(),
    z.object({ glob: z.string().min(1) }).strict(),
    z.object({ host_in: z.array(z.string().min(1)).min(1) }).strict(),
    z.object({ max_length: z.number().int().nonnegative() }).strict(),
    z.object({ all: z.array(ValueConstraint).min(1) }).strict(),
    z.object({ any: z.array(ValueConstraint).min(1) }).strict(),
    z.object({ not: ValueConstraint }).strict(),
  ]),
);

/**
 * `email.send_email`, or a glob whose `*` matches any run of characters in the action part:
 * `email.*`, `email.send_*`; or `*` for every op.
 */
export const OpPattern = z
  .string()
  .regex(/^(\*|[a-z][a-z0-9_]*\.[a-z0-9_*]+)$/, "must be <connector>.<action>, a glob such as email.* or email.send_*, or *");

export const CountBound = z.object({ max: z.number().int().nonnegative() }).strict();

/** Conditions on the effects of one op (or op glob): per-argument value constraints, a call count, distinctness. */
export const EffectConstraint = z
  .object({
    op: OpPattern,
    args: z.record(z.string(), ValueConstraint).optional(),
    count: CountBound.optional(),
    distinct: z.string().optional(),
  })
  .strict();
export type EffectConstraint = z.infer<typeof EffectConstraint>;

/** Three-valued answer of the static check: yes for every run, no for every run, or it depends. */
export const Verdict3 = z.enum(["yes", "no", "maybe"]);
export type Verdict3 = z.infer<typeof Verdict3>;

export { JsonPrimitive };

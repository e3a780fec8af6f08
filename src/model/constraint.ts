import { z } from "zod";
import { readHostEntry } from "./host-port.js";
import { Json, JsonPrimitive } from "./json.js";
import { parseJsonPath } from "./json-path.js";

/**
 * The one constraint language (docs/architecture.md section 6), shared by program guarantees,
 * policy rule conditions and receipt grants. Exactly one key per value constraint; `.strict()` so a typo such
 * as `{ under_: "/x" }` is an error rather than a constraint that silently matches everything.
 *
 * On a list value most keys apply to each element (docs/architecture.md section 6): `eq`, `in`,
 * `not_in`, `under`, `glob`, `host_in`, `prefix`, `suffix`, `any`, `not`.
 * The others look at the value itself:
 * - `max_length`, `min_length`: a string's length in UTF-16 code units, or a list's length;
 * - `type`: the value's JSON type is one of these (`string`, `number`, `boolean`, `null`,
 *   `array`, `object`);
 * - `elements`: the value is a list and every element satisfies the constraint;
 * - `fields`: the value is an object with no key beyond those listed, and each listed field
 *   (null when absent) satisfies its constraint;
 * - `json`: the value is a string holding JSON text (each object key once, nested at most as
 *   deep as a trusted call's arguments may be) whose parsed value satisfies the constraint; text
 *   that does not parse so, and any non-string, fails;
 * - `at`: `{ path, is }`: the value reached by `path` (`$.payment.to`, `$["reply-to"]`,
 *   `$.items[*].to` for every element of a list) satisfies `is`; a field that is absent, or asked
 *   of a value that is no object, is null, as in `fields`; other fields are left free;
 * - `all`: every part holds of the value (`{ all: [] }` holds of anything);
 * - `sha256`: the value is a string whose UTF-8 bytes hash (SHA-256, lower-case hex) to one of
 *   these: binds a text by digest (an approved mail's body) without the text itself. Statically
 *   unknown unless the value is constant; a list is not a string (it fails).
 * `prefix` and `suffix` compare exactly, character for character: no wildcards, no case folding.
 * Provenance (docs/architecture.md section 6), for policy rules only: `untrusted: true` — the value
 * may derive from untrusted data; `untrusted: false` — it never does; `from: [op patterns]` — it
 * derives from a result of one of these ops. Only the analysis knows a value's sources: they are
 * decided statically (never `yes` for "derives from"), a guarantee may not use them, and a deny
 * rule's guard has them replaced before it reaches a receipt (constraint/sources.ts).
 * A string operand holding `@` (in `eq`, `in`, `not_in`, `glob`) is an email address or pattern
 * and compares in canonical form (see email-address.ts), so `CEO@Rival.com.` is `ceo@rival.com`.
 * `mailbox_in` and `mailbox_glob` compare mailboxes instead: every address that reaches the same
 * mailbox matches (`ceo+x@rival.com` is `ceo@rival.com`; at Gmail dots do not count either). A
 * policy's deny and ask conditions compare this way and its allow conditions exactly
 * (policy/widen-addresses.ts), and a deny rule's guard carries the comparison it was decided with.
 */
export type ValueConstraint =
  | { eq: Json }
  | { in: Json[] }
  | { not_in: Json[] }
  | { under: string }
  | { glob: string }
  | { mailbox_in: string[] }
  | { mailbox_glob: string }
  | { host_in: string[] }
  | { prefix: string }
  | { suffix: string }
  | { max_length: number }
  | { min_length: number }
  | { type: JsonType[] }
  | { sha256: string[] }
  | { elements: ValueConstraint }
  | { fields: Record<string, ValueConstraint> }
  | { json: ValueConstraint }
  | { at: { path: string; is: ValueConstraint } }
  | { all: ValueConstraint[] }
  | { any: ValueConstraint[] }
  | { not: ValueConstraint }
  | { untrusted: boolean }
  | { from: string[] };

/** The JSON types `type` names. */
export const JsonType = z.enum(["string", "number", "boolean", "null", "array", "object"]);
export type JsonType = z.infer<typeof JsonType>;

const absolutePath = z.string().refine((p) => p.startsWith("/"), "must be an absolute path");

const address = z.string().refine((a) => a.includes("@"), "must be an email address or pattern (holding @)");

/** A host_in entry: `api.x.com` or `api.x.com:8443`. A URL there would never match any request. */
const hostEntry = z.string().check((ctx) => {
  if (readHostEntry(ctx.value) === null) {
    ctx.issues.push({
      code: "custom",
      input: ctx.value,
      message: `${JSON.stringify(ctx.value)} is not a host: host_in takes host names only (optionally with :port), no scheme or path`,
    });
  }
});

const jsonPath = z
  .string()
  .refine((p) => parseJsonPath(p) !== undefined, 'must be a path such as $.payment.to, $["reply-to"] or $.items[*].to');

/** One schema per constraint key; a value constraint is an object with exactly one of these keys. */
const valueConstraintBranches: Record<string, z.ZodType> = {
  eq: z.object({ eq: Json }).strict(),
  in: z.object({ in: z.array(Json) }).strict(),
  not_in: z.object({ not_in: z.array(Json) }).strict(),
  under: z.object({ under: absolutePath }).strict(),
  glob: z.object({ glob: z.string().min(1) }).strict(),
  mailbox_in: z.object({ mailbox_in: z.array(address).min(1) }).strict(),
  mailbox_glob: z.object({ mailbox_glob: address }).strict(),
  host_in: z.object({ host_in: z.array(hostEntry).min(1) }).strict(),
  prefix: z.object({ prefix: z.string().min(1) }).strict(),
  suffix: z.object({ suffix: z.string().min(1) }).strict(),
  max_length: z.object({ max_length: z.number().int().nonnegative() }).strict(),
  min_length: z.object({ min_length: z.number().int().nonnegative() }).strict(),
  type: z.object({ type: z.array(JsonType).min(1) }).strict(),
  sha256: z
    .object({ sha256: z.array(z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lower-case hex")).min(1) })
    .strict(),
  elements: z.object({ elements: z.lazy(() => ValueConstraint) }).strict(),
  fields: z
    .object({
      fields: z.record(
        z.string(),
        z.lazy(() => ValueConstraint),
      ),
    })
    .strict(),
  json: z.object({ json: z.lazy(() => ValueConstraint) }).strict(),
  at: z.object({ at: z.object({ path: jsonPath, is: z.lazy(() => ValueConstraint) }).strict() }).strict(),
  all: z.object({ all: z.array(z.lazy(() => ValueConstraint)) }).strict(),
  any: z.object({ any: z.array(z.lazy(() => ValueConstraint)).min(1) }).strict(),
  not: z.object({ not: z.lazy(() => ValueConstraint) }).strict(),
  untrusted: z.object({ untrusted: z.boolean() }).strict(),
  from: z.object({ from: z.array(z.lazy(() => OpPattern)).min(1) }).strict(),
};
const constraintKeys = Object.keys(valueConstraintBranches).join(", ");

/**
 * Dispatch on the single key instead of trying every branch of a union: it names the real
 * mistake ("unknown constraint key under_") and is several times faster, which matters because
 * every receipt verification parses its grants.
 */
export const ValueConstraint: z.ZodType<ValueConstraint> = z.unknown().transform((value, ctx) => {
  const keys = typeof value === "object" && value !== null && !Array.isArray(value) ? Object.keys(value) : [];
  const branch = keys.length === 1 ? valueConstraintBranches[keys[0]!] : undefined;
  if (branch === undefined) {
    const found = keys.length === 0 ? "no key" : keys.map((k) => JSON.stringify(k)).join(", ");
    ctx.addIssue({
      code: "custom",
      message: `a value constraint must have exactly one of ${constraintKeys}; found ${found}`,
    });
    return z.NEVER;
  }
  const parsed = branch.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      ctx.addIssue({ code: "custom", message: issue.message, path: issue.path as PropertyKey[] });
    return z.NEVER;
  }
  return parsed.data as ValueConstraint;
}) as unknown as z.ZodType<ValueConstraint>;

/**
 * `email.send_email`, or a glob whose `*` matches any run of characters in the action part:
 * `email.*`, `email.send_*`; or `*` for every op.
 */
export const OpPattern = z
  .string()
  .regex(
    /^(\*|[a-z][a-z0-9_]*\.[a-z0-9_*]+)$/,
    "must be <connector>.<action>, a glob such as email.* or email.send_*, or *",
  );

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

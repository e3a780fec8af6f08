import { z } from "zod";
import { Json } from "./json.js";

/**
 * A source a value may derive from (its data may be copied or computed from it). `untrusted`
 * marks data read from the outside world (a draft body, a file, an HTTP response): the agent or a
 * third party may control it. `op` names the connector op whose result it is; an untrusted source
 * without `op` is of unknown origin (a variable changed by a callback, a caught error) and may
 * hold any op's result. A value with no source at all is made of the program's own literals.
 * `path` narrows an op's source to one part of its result (`$.payee.iban`, `$.items[*].iban`;
 * absent: any part, `$`), `host` says where the call that returned it went; a policy's
 * `[[trusted]]` entries read both, and `trustedBy` names the entry that vouched for the source.
 */
export const Provenance = z.object({
  source: z.string(), // e.g. "result of email.get_draft", "loop variable", "Date.now()"
  untrusted: z.boolean(),
  op: z.string().optional(), // e.g. "email.get_draft": the value derives from that op's result
  path: z.string().optional(), // e.g. "$.iban": the value is that part of the result, or lies inside it
  host: z.string().optional(), // e.g. "api.bank.example": every url the call may be given goes there
  trustedBy: z.string().optional(), // e.g. `[[trusted]] op = "http.get", host = "api.bank.example"`
  handle: z.string().optional(), // e.g. "h_x": a quarantined result the program took up with fromHandle
});
export type Provenance = z.infer<typeof Provenance>;

/** An inclusive range; `max: null` means unbounded (e.g. a loop without a static bound). */
export const CountRange = z.object({
  min: z.number().int().nonnegative(),
  max: z.number().int().nonnegative().nullable(),
});
export type CountRange = z.infer<typeof CountRange>;

/**
 * The analysis's over-approximation of a value (docs/architecture.md section 6). Every concrete value a run
 * could produce must be a member of the abstract value's concretization:
 * - const:   one of a finite set of JSON values (the program's own literals, unless `provenance`
 *            says they match what the agent was given by an earlier run: pasted, see src/given);
 * - string:  any string starting with `prefix` and ending with `suffix` (the middle is unknown);
 * - array:   an array whose length lies in `length` and every element in `element`;
 * - record:  an object whose listed fields are in their abstract values (other fields: absent);
 * - unknown: anything at all, with where it came from.
 */
export type AbstractValue =
  | { kind: "const"; values: Json[]; provenance?: Provenance[] }
  | { kind: "string"; prefix: string; suffix: string; provenance: Provenance[] }
  | { kind: "array"; element: AbstractValue; length: CountRange }
  | { kind: "record"; fields: Record<string, AbstractValue> }
  | { kind: "unknown"; provenance: Provenance[] };

export const AbstractValue: z.ZodType<AbstractValue> = z.lazy(() =>
  z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("const"), values: z.array(Json).min(1), provenance: z.array(Provenance).optional() }),
    z.object({ kind: z.literal("string"), prefix: z.string(), suffix: z.string(), provenance: z.array(Provenance) }),
    z.object({ kind: z.literal("array"), element: AbstractValue, length: CountRange }),
    z.object({ kind: z.literal("record"), fields: z.record(z.string(), AbstractValue) }),
    z.object({ kind: z.literal("unknown"), provenance: z.array(Provenance) }),
  ]),
);

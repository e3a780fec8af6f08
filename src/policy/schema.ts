import { z } from "zod";
import { canonicalFieldPath } from "../constraint/index.js";
import { EffectConstraint, OpPattern, readHostEntry, ValueConstraint } from "../model/index.js";

/**
 * The shape of one policy file (`policies/*.toml`, docs/architecture.md section 7), checked alone.
 * Rules that need every file or the manifests (unique ids, one default, known ops and inputs)
 * live in the loader.
 */

export const RuleDecision = z.enum(["deny", "ask", "allow"]);
export type RuleDecision = z.infer<typeof RuleDecision>;

export const DefaultDecision = z.enum(["ask", "deny"]);
export type DefaultDecision = z.infer<typeof DefaultDecision>;

/**
 * `influenced_by`: a provenance condition (`{ untrusted = true }`, `{ from = [...] }`, their
 * `not`, `all` and `any`) on the sources that influenced whether and how the call runs — what the
 * program branched, looped or chose on before it (docs/architecture.md section 7).
 */
export const InfluenceCondition = ValueConstraint.refine(
  onlySources,
  "influenced_by takes provenance conditions only: untrusted, from, and their not, all and any",
);

function onlySources(c: ValueConstraint): boolean {
  if ("untrusted" in c || "from" in c) return true;
  if ("all" in c) return c.all.every(onlySources);
  if ("any" in c) return c.any.every(onlySources);
  return "not" in c && onlySources(c.not);
}

/**
 * `context`: a condition on what the submitting agent had been given by its earlier runs (within
 * the policy's `given_hours`): `{ untrusted = true }` holds when it was given any untrusted data,
 * so that it may have been steered whatever this program's own values say.
 */
export const ContextCondition = z.object({ untrusted: z.boolean() }).strict();
export type ContextCondition = z.infer<typeof ContextCondition>;

/**
 * A rule's condition: an effect constraint without `op` (the rule names the op itself), what may have influenced the
 * call, and what the agent had been given.
 */
export const RuleWhen = EffectConstraint.omit({ op: true })
  .extend({ influenced_by: InfluenceCondition.optional(), context: ContextCondition.optional() })
  .strict();
export type RuleWhen = z.infer<typeof RuleWhen>;

export const PolicyRule = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "must be letters, digits, '_', '.' or '-'"),
    decision: RuleDecision,
    op: OpPattern,
    when: RuleWhen.optional(),
    reason: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((rule, ctx) => {
    if (rule.decision === "deny" && rule.reason === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["reason"],
        message: "a deny rule needs a reason: the agent and the user see it",
      });
    }
    // "deny when count <= n" would refuse the small programs and let the large ones through.
    for (const key of ["count", "distinct"] as const) {
      if (rule.decision === "deny" && rule.when?.[key] !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["when", key],
          message: `${key} is not allowed in a deny rule (it would deny only programs within the bound); use an allow or ask rule with ${key}`,
        });
      }
    }
  });
export type PolicyRule = z.infer<typeof PolicyRule>;

/** How long, by default, what a run gave an agent back counts against its later programs. */
export const DEFAULT_GIVEN_HOURS = 24;

/**
 * A `[[trusted]]` entry: the user vouches for what an op returns, or only for some parts of it
 * (`fields`, paths as in the facts: `$.iban`, `$.payee`, `$.items[*].iban`; absent: the whole
 * result), from one host only when `host` is given. A source it matches is trusted wherever the
 * rules look (see trustSources). Only the user's policy files can say it.
 */
export const TrustedEntry = z
  .object({
    op: OpPattern,
    host: z
      .string()
      .transform(
        canonical(
          hostEntry,
          'must be a host name, with the port only when it is not the default one, e.g. "api.bank.example"',
        ),
      )
      .optional(),
    fields: z
      .array(
        z
          .string()
          .transform(
            canonical(
              canonicalFieldPath,
              'must be a path into the result: "$", "$.iban", "$.payee.name", "$.items[*].iban" or \'$["a b"]\'',
            ),
          ),
      )
      .min(1, "list at least one field, or leave fields out to trust the whole result")
      .optional(),
    reason: z.string().min(1).optional(),
  })
  .strict();
export type TrustedEntry = z.infer<typeof TrustedEntry>;

/** A transform to a value's one spelling, or an issue saying what it must be. */
function canonical(spell: (raw: string) => string | undefined, message: string) {
  return (raw: string, ctx: z.RefinementCtx): string => {
    const spelled = spell(raw);
    if (spelled !== undefined) return spelled;
    ctx.addIssue({ code: "custom", message });
    return z.NEVER;
  };
}

/** `api.bank.example` or `api.bank.example:8443`, lower case, as the facts write a call's host. */
function hostEntry(raw: string): string | undefined {
  const entry = readHostEntry(raw);
  if (entry === null) return undefined;
  return entry.port === null ? entry.host : `${entry.host}:${entry.port}`;
}

export const PolicyFile = z
  .object({
    default: DefaultDecision.optional(),
    // How long what a run gave an agent back counts against its later programs (pasted values, `context`).
    given_hours: z
      .number()
      .positive()
      .max(24 * 366)
      .optional(),
    rules: z.array(PolicyRule).default([]),
    trusted: z.array(TrustedEntry).optional(),
    // Ops whose untrusted results `main` returns as handles, not text (quarantined results).
    handles: z.array(OpPattern).optional(),
  })
  .strict();
export type PolicyFile = z.infer<typeof PolicyFile>;

/** A rule after loading, with the file it came from. */
export interface LoadedRule extends PolicyRule {
  file: string;
}

/** A `[[trusted]]` entry after loading, with the file it came from. */
export interface LoadedTrustedEntry extends TrustedEntry {
  file: string;
}

/** Every policy file of a directory, validated together. */
export interface Policy {
  dir: string;
  files: string[]; // absolute paths, sorted by file name
  default: DefaultDecision;
  givenHours: number; // see PolicyFile.given_hours
  ownAddresses: readonly string[]; // the user's own addresses it was loaded with (`own_address`)
  rules: LoadedRule[]; // in file order, then rule order
  trusted?: LoadedTrustedEntry[]; // in file order, then entry order; absent: none
  handles: string[]; // op patterns of every file's `handles`, without repeats, sorted
  sha256: string; // see policyHash
}

/** One thing wrong with a policy: where (file, rule, field, line) and what. */
export interface PolicyProblem {
  file: string;
  rule?: string;
  field?: string;
  line?: number;
  message: string;
}

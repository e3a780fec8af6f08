import { z } from "zod";
import { EffectConstraint, OpPattern, ValueConstraint } from "../model/index.js";

/**
 * The shape of one policy file (`policies/*.toml`, DESIGN.md section 7), checked alone.
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
 * program branched, looped or chose on before it (issue 15).
 */
export const InfluenceCondition = ValueConstraint.refine(onlySources, "influenced_by takes provenance conditions only: untrusted, from, and their not, all and any");

function onlySources(c: ValueConstraint): boolean {
  if ("untrusted" in c || "from" in c) return true;
  if ("all" in c) return c.all.every(onlySources);
  if ("any" in c) return c.any.every(onlySources);
  return "not" in c && onlySources(c.not);
}

/** A rule's condition: an effect constraint without `op` (the rule names the op itself), and what may have influenced the call. */
export const RuleWhen = EffectConstraint.omit({ op: true }).extend({ influenced_by: InfluenceCondition.optional() }).strict();
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
      ctx.addIssue({ code: "custom", path: ["reason"], message: "a deny rule needs a reason: the agent and the user see it" });
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

export const PolicyFile = z
  .object({
    default: DefaultDecision.optional(),
    rules: z.array(PolicyRule).default([]),
    // Ops whose untrusted results `main` returns as handles, not text (quarantined results).
    handles: z.array(OpPattern).optional(),
  })
  .strict();
export type PolicyFile = z.infer<typeof PolicyFile>;

/** A rule after loading, with the file it came from. */
export interface LoadedRule extends PolicyRule {
  file: string;
}

/** Every policy file of a directory, validated together. */
export interface Policy {
  dir: string;
  files: string[]; // absolute paths, sorted by file name
  default: DefaultDecision;
  rules: LoadedRule[]; // in file order, then rule order
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

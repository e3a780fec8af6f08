import { z } from "zod";
import { GivenContext } from "./given.js";
import { PolicyDecision } from "./decision.js";
import { AgentManifestSource } from "./agent-manifest.js";
import { Facts } from "./facts.js";
import { MAX_DEADLINE_SECONDS, MAX_RATIONALE_CHARS, RequestStatus } from "./request.js";

// The authority's HTTP API (`/v1/...`): one schema per body it accepts, and the check result its
// clients read. Every object is strict: an unknown field is refused, not ignored.

/** A file name for messages and the receipt: printable, no path tricks that would mislead a reader. */
const SourceName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\u0000-\u001f\u007f]+$/, "must be printable text");

/** `POST /v1/requests`: a program to analyze, decide and maybe approve. */
export const SubmitBody = z
  .object({
    program: z.string().min(1, "must be the program's source text"),
    source_name: SourceName.optional(),
    rationale: z.string().max(MAX_RATIONALE_CHARS).optional(),
    timeout_s: z.number().int().min(1).max(MAX_DEADLINE_SECONDS).optional(), // how long it may wait for a person
    manifests: z.array(AgentManifestSource).optional(), // agent-submitted action manifests the program imports from trusted/agent (checked, limits included, before the analysis)
  })
  .strict();
export type SubmitBody = z.infer<typeof SubmitBody>;

/** `POST /v1/check`: the same analysis and decision as a dry run. */
export const CheckBody = z
  .object({
    program: SubmitBody.shape.program,
    source_name: SourceName.optional(),
    manifests: SubmitBody.shape.manifests,
  })
  .strict();
export type CheckBody = z.infer<typeof CheckBody>;

/**
 * Why a checked program would be asked about, for the agent that wrote it: each call a person
 * would be asked about, the rule that asks (null: no rule allows it, the default asks) with its
 * reason, and whether some guarantee the program could add might let it through.
 */
export const AskAdvice = z.object({
  asks: z.array(
    z.object({
      op: z.string(),
      line: z.number().int(),
      rule: z.string().nullable(),
      reason: z.string(),
      guarantee_could_help: z.boolean(),
    }),
  ),
});
export type AskAdvice = z.infer<typeof AskAdvice>;

/**
 * What `POST /v1/check` answers, and what `countersign check` prints either way; `advice` when a person would be asked.
 */
export const CheckResult = z.object({ facts: Facts, decision: PolicyDecision, advice: AskAdvice.optional() });
export type CheckResult = z.infer<typeof CheckResult>;

/** Whom a remembered rule applies to: the submitter token of the request it came from, or every agent. */
export const RememberScope = z.enum(["token", "everyone"]);
export type RememberScope = z.infer<typeof RememberScope>;

/** How long a remembered rule applies. */
export const RememberLifetime = z.enum(["hour", "day", "forever"]);
export type RememberLifetime = z.infer<typeof RememberLifetime>;
export const REMEMBER_LIFETIME_MS: Readonly<Record<RememberLifetime, number | null>> = {
  hour: 3_600_000,
  day: 86_400_000,
  forever: null,
};

/**
 * `POST /v1/requests/:id/decision`: a person's decision. approved_remember may say whom the saved
 * rule applies to and for how long; left out, it is the narrowest: this token, one hour.
 */
export const DecisionBody = z
  .object({
    decision: z.enum(["approved_once", "approved_remember", "rejected", "request_more"]),
    reason: z.string().max(MAX_RATIONALE_CHARS).optional(),
    feedback: z.string().max(MAX_RATIONALE_CHARS).optional(),
    scope: RememberScope.optional(),
    lifetime: RememberLifetime.optional(),
    // An approval's digest of the content the page said it binds (the page's `binding.sha256`).
    shown: z
      .string()
      .regex(/^[0-9a-f]{64}$/, "must be the binding's sha256 from the request page")
      .optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.decision === "rejected" && (body.reason ?? "").trim() === "")
      ctx.addIssue({ code: "custom", path: ["reason"], message: "a rejection needs a reason" });
    if (body.decision === "request_more" && (body.feedback ?? "").trim() === "")
      ctx.addIssue({
        code: "custom",
        path: ["feedback"],
        message: "a request for changes needs feedback for the agent",
      });
    if (body.shown !== undefined && body.decision !== "approved_once" && body.decision !== "approved_remember")
      ctx.addIssue({ code: "custom", path: ["shown"], message: "only an approval binds what it was shown" });
    for (const key of ["scope", "lifetime"] as const) {
      if (body.decision !== "approved_remember" && body[key] !== undefined)
        ctx.addIssue({ code: "custom", path: [key], message: "only approved_remember takes a scope and a lifetime" });
    }
  });
export type DecisionBody = z.infer<typeof DecisionBody>;

/** `POST /v1/requests/:id/question`: a person's question about a request, answered from its facts or not at all. */
export const QuestionBody = z
  .object({ question: z.string().min(1, "write a question").max(MAX_RATIONALE_CHARS) })
  .strict();
export type QuestionBody = z.infer<typeof QuestionBody>;

/** `POST /v1/requests/:id/question`: `question` is the question as countersign understood it, in its own words. */
export const QuestionAnswer = z.union([
  z.object({ answered: z.literal(true), question: z.string(), lines: z.array(z.string()) }).strict(),
  z.object({ answered: z.literal(false) }).strict(),
]);
export type QuestionAnswer = z.infer<typeof QuestionAnswer>;

/** `POST /v1/receipts/:jti/redeem`: the runner names the receipt's expiry, as the receipt says it. */
export const RedeemBody = z.object({ exp: z.number().int().positive() }).strict();
export type RedeemBody = z.infer<typeof RedeemBody>;

/** `GET /v1/requests?status=&limit=&cursor=` as query text. */
export const ListParams = z
  .object({
    status: RequestStatus.optional(),
    limit: z
      .string()
      .regex(/^[1-9][0-9]{0,2}$/, "must be a number from 1 to 500")
      .transform(Number)
      .refine((n) => n <= 500, "must be a number from 1 to 500")
      .optional(),
    cursor: z.string().optional(),
  })
  .strict();
export type ListParams = z.infer<typeof ListParams>;

/** One rule of the policy in force as an agent reads it: when it applies, in plain words. */
export const ContextRule = z.object({
  id: z.string(),
  decision: z.enum(["deny", "ask", "allow"]),
  op: z.string(),
  when: z.string(),
  reason: z.string().nullable(),
  remembered: z.boolean(), // saved by a person's "approve and remember", not written in a policy file
});
export type ContextRule = z.infer<typeof ContextRule>;

/** Where the policy lets one input of one op point (see policyBound): `within` null when no rule bounds it. */
export const ContextBound = z.object({
  op: z.string(),
  input: z.string(),
  within: z.array(z.string()).nullable(),
  auto_pass: z.array(z.string()),
  rules: z.array(z.string()),
  see: z.array(z.string()),
});
export type ContextBound = z.infer<typeof ContextBound>;

/** Hosts and roots per connector (connector name to its list). */
const PerConnector = z.record(z.string(), z.array(z.string()));

/**
 * `GET /v1/context`: what the authority knows of the submitter's world. The policy in force for
 * this token (remembered rules for it or for everyone included), where it bounds folders and
 * hosts, the user's own mail address, what agent manifests may reach, and how long a request
 * waits and a receipt lasts. Nothing secret: no token, no path of countersign's own files.
 */
export const AuthorityContext = z
  .object({
    policy: z.object({
      sha256: z.string(),
      default: z.enum(["ask", "deny"]),
      rules: z.array(ContextRule),
      not_applied: z.array(z.string()),
    }),
    bounds: z.array(ContextBound),
    own_address: z.string().nullable(),
    // null: the authority's connections.toml does not load (its own address is then unknown too)
    agent_manifests: z
      .object({ hosts: PerConnector, roots: PerConnector, limits: z.record(z.string(), z.number()) })
      .nullable(),
    lifetimes: z.object({
      request_deadline_s: z.number(),
      request_deadline_max_s: z.number(),
      receipt_s: z.number(),
      remembered_rule_s: z.record(z.string(), z.number().nullable()),
      given_s: z.number().optional(),
    }),
    given: GivenContext.optional(), // what this agent's runs gave it back within given_s (absent from an older authority)
    analysis_budget: z.object({ ms: z.number(), steps: z.number(), bytes: z.number() }),
  })
  .strict();
export type AuthorityContext = z.infer<typeof AuthorityContext>;

import { z } from "zod";
import type { RequestPage } from "../../app/index.js";
import { Facts, PolicyDecision, RecordedDecision, RequestStatus } from "../../model/index.js";

// What the authority answers an approver, read back by the terminal approver: the pending list
// (`GET /v1/requests`, the authority's approverView) and one request's page (`GET
// /v1/requests/:id/page`, the one view model both approval surfaces render). Not strict: fields
// the authority adds later are ignored here rather than refused.

const Iso = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO date");

const PageRisk = z.object({
  kind: z.enum([
    "refused_at_send",
    "preview_unavailable",
    "untrusted_values",
    "mail_to_others",
    "files_outside",
    "unbounded",
  ]),
  level: z.enum(["danger", "warning"]),
  label: z.string(),
  text: z.string(),
});

export const ApproverRequest = z.object({
  id: z.string(),
  status: RequestStatus,
  token: z.string(), // the submitter token (the agent) that sent it
  created_at: Iso,
  deadline_at: Iso,
  policy: PolicyDecision,
  decision: RecordedDecision.omit({ at: true }).extend({ at: Iso }).nullable(),
  rationale: z.string().nullable(), // the submitter's words beside the program's own
  source: z.string(),
  facts: Facts,
  headline: z.string().optional(), // what the authority's inbox shows for it (an older authority sends none)
  risks: z.array(PageRisk).default([]),
});
export type ApproverRequest = z.infer<typeof ApproverRequest>;

export const ApproverList = z.object({ requests: z.array(ApproverRequest), cursor: z.string().optional() });

const Line = z.number().int().positive();
const Verdict = z.enum(["allow", "ask", "deny"]);
const Sources = z.object({ text: z.string(), untrusted: z.boolean(), own: z.boolean().default(false) });

/** The request page as JSON; typed against the authority's own RequestPage, so a change there fails to compile here. */
export const ApproverPage: z.ZodType<RequestPage> = z.object({
  id: z.string(),
  status: RequestStatus,
  final: z.boolean(),
  entry: z.string(),
  program_sha256: z.string(),
  submitter: z.string(),
  created_at: Iso,
  deadline_at: Iso,
  verdict: z.object({
    kind: z.enum(["auto_approved", "auto_rejected", "ask"]),
    reason: z.string(),
    rulings: z.array(
      z.object({
        op: z.string(),
        line: Line,
        column: z.number().int(),
        verdict: Verdict,
        rule: z.string().nullable(),
        why: z.string(),
      }),
    ),
  }),
  decision: z
    .object({
      kind: z.string(),
      approver: z.string().nullable(),
      by: z.enum(["person", "policy", "remembered_rule"]),
      rules: z.array(z.string()).default([]),
      reason: z.string().nullable(),
      feedback: z.string().nullable(),
      at: Iso,
    })
    .nullable(),
  headline: z.string(),
  risks: z.array(PageRisk),
  facts: z.array(
    z.object({
      status: z.enum(["proven", "enforced", "not_proven", "unknown"]),
      text: z.string(),
      why: z.string(),
      line: Line.nullable(),
    }),
  ),
  calls: z.array(
    z.object({
      op: z.string(),
      line: Line,
      column: z.number().int(),
      count: z.string(),
      args: z.array(z.object({ name: z.string(), value: z.string(), sources: Sources.nullable() })),
      influence: Sources.nullable(),
    }),
  ),
  previews: z
    .array(
      z.union([
        z.object({
          op: z.string(),
          line: Line.nullable(),
          fields: z.array(z.object({ label: z.string(), value: z.string(), multiline: z.boolean() })),
        }),
        z.object({ op: z.string(), line: Line.nullable(), unavailable: z.string() }),
      ]),
    )
    .nullable(),
  rationale: z.object({ program: z.string(), submitter: z.string().nullable() }),
  source: z.object({ lines: z.array(z.string()), call_lines: z.array(Line) }),
  remember: z
    .object({
      rules: z.array(
        z.object({ op: z.string(), id: z.string(), text: z.string(), rule: z.string(), also: z.string() }),
      ),
      refused: z.array(z.object({ op: z.string(), why: z.string() })),
    })
    .nullable(),
  binding: z
    .object({
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      calls: z.array(z.object({ op: z.string(), line: Line, bound: z.boolean(), text: z.string() })),
      runtime: z.array(z.object({ op: z.string(), line: Line, text: z.string() })),
    })
    .nullable()
    .default(null), // an authority from before approvals bound content sends none
  agent_manifests: z
    .union([
      z.object({
        sha256: z.string(),
        actions: z.array(
          z.object({
            op: z.string(),
            description: z.string(),
            approval_required: z.boolean(),
            idempotent: z.boolean(),
            inputs: z.array(
              z.object({ name: z.string(), type: z.string(), required: z.boolean(), description: z.string() }),
            ),
            steps: z.array(
              z.object({
                id: z.string(),
                op: z.string(),
                inputs: z.array(z.object({ name: z.string(), value: z.string() })),
                calls: z.array(
                  z.object({
                    line: Line,
                    column: z.number().int(),
                    count: z.string(),
                    args: z.array(z.object({ name: z.string(), value: z.string() })),
                  }),
                ),
              }),
            ),
          }),
        ),
      }),
      z.object({ sha256: z.string(), unavailable: z.string() }),
    ])
    .nullable()
    .default(null), // an authority from before agent manifests were shown sends none
});

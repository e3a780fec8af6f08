import { CountersignError } from "../model/index.js";
import type { Facts } from "../model/index.js";
import { programBytes } from "../model/index.js";
import type { StoredRequest } from "../model/index.js";
import { newRequestId } from "../store/index.js";
import { checkProgram } from "./check-program.js";
import type { AppContext, ProgramInput } from "./context.js";
import { manifestsFor } from "./manifests-for.js";

export interface Submission {
  token: string; // the name of the submitter token that sent it
  program: ProgramInput;
  rationale?: string; // the submitter's words beside the program's own
  deadlineSeconds?: number; // how long it may wait for a person
}

/** An auto-approved request comes back with its receipt. */
export interface Submitted {
  request: StoredRequest;
  receipt?: string;
}

/**
 * Submit a program for approval. The facts are computed here, never taken from the submitter;
 * the policy in force decides at once (auto_approved, auto_rejected) or the request waits for a
 * person (ask). Every submission is a new request: a decision is never reused. An auto-approved
 * request and its receipt are stored in one transaction, before the receipt is returned. The agent
 * manifests it came with are stored as their canonical text, so that the person sees what the
 * receipt binds, after a restart too.
 */
export async function submitRequest(ctx: AppContext, submission: Submission): Promise<Submitted> {
  const id = newRequestId();
  const { facts, decision, receipt } = await checkProgram(ctx, submission.program, submission.token, id);
  refuseIfRejected(facts);
  const agent =
    facts.agentManifests === undefined
      ? undefined
      : manifestsFor(ctx.manifests(), ctx.dataDir, submission.program.manifests).agent;
  const store = await ctx.store();
  const result = await store.submit({
    token: submission.token,
    source: programText(submission.program.source),
    facts,
    policy: decision,
    ...(submission.rationale === undefined ? {} : { rationale: submission.rationale }),
    ...(agent === undefined ? {} : { agent_manifests: agent.text }),
    ...(submission.deadlineSeconds === undefined ? {} : { deadline_s: submission.deadlineSeconds }),
    ...(receipt === undefined ? {} : { id, receipt: { jti: receipt.jti, exp: receipt.exp, token: receipt.token } }),
  });
  if (!result.ok)
    throw new CountersignError("capability_denied", "authority", "the submitter token was revoked", {
      details: { reason: "unauthenticated" },
    });
  return receipt === undefined ? { request: result.request } : { request: result.request, receipt: receipt.token };
}

/**
 * The program's text, as the store records it. A program that is not UTF-8 (bytes that do not
 * decode, a string with a lone surrogate) was refused with its facts, so a string is its text.
 */
function programText(source: ProgramInput["source"]): string {
  return typeof source === "string" ? source : (programBytes(source).text ?? "");
}

/**
 * A program the analysis refuses (type errors, refused constructs, past its budget) is no request: analysis_rejected
 * with every diagnostic.
 */
export function refuseIfRejected(facts: Facts): void {
  const errors = facts.diagnostics.filter((d) => d.severity === "error");
  if (errors.length === 0) return;
  const first = errors[0]!;
  throw new CountersignError(
    "analysis_rejected",
    "analysis",
    `${facts.program.entry}:${first.line}:${first.column}: ${first.code}: ${first.message}`,
    {
      details: { program: facts.program, diagnostics: facts.diagnostics },
    },
  );
}

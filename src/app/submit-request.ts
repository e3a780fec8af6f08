import { programBytes } from "../model/program-bytes.js";
import type { ApprovalRequest } from "../model/request.js";
import { checkProgram, type ProgramInput } from "./check-program.js";
import type { AppContext } from "./context.js";

/**
 * Submit a program for approval: the facts are computed here, never taken from the submitter;
 * the policy decides at once (auto_approved, auto_rejected) or the request waits for a person
 * (ask). An in-process stand-in for the authority's submit route, over the same context.
 */
export async function submitRequest(ctx: AppContext, program: ProgramInput): Promise<ApprovalRequest> {
  const { facts, decision } = await checkProgram(ctx, program);
  const request: ApprovalRequest = {
    id: ctx.newId(),
    created: ctx.now().toISOString(),
    program: facts.program,
    source: programBytes(program.source).text ?? "", // a program that is not UTF-8 was refused by the analysis
    rationale: facts.rationale,
    decision,
  };
  await ctx.requests.save(request);
  return request;
}

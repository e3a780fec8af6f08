import type { PolicyDecision } from "../model/index.js";
import type { Facts } from "../model/index.js";
import { decide } from "../policy/index.js";
import type { AppContext, ProgramInput } from "./context.js";
import { policyInForce } from "./policy-in-force.js";

/**
 * Analyze a program and run the policy in force over its facts, recording nothing (`countersign
 * check`, `POST /v1/check`). `submitter`: the token it comes from, whose remembered rules apply
 * (null: only those for every agent).
 */
export async function checkProgram(ctx: AppContext, program: ProgramInput, submitter: string | null): Promise<{ facts: Facts; decision: PolicyDecision }> {
  const facts = await ctx.analyze(program);
  const { policy } = await policyInForce(ctx, submitter);
  return { facts, decision: decide(facts, policy, ctx.manifests()) };
}

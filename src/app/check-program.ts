import type { AppContext, ProgramInput } from "./context.js";
import { decideAndSign, type Evaluation } from "./decide-and-sign.js";
import { policyInForce } from "./policy-in-force.js";

/**
 * Analyze a program and run the policy in force over its facts, recording nothing (`countersign
 * check`, `POST /v1/check`). `submitter`: the token it comes from, whose remembered rules apply
 * (null: only those for every agent). `receiptFor`: the id of the request that will record it;
 * an auto-approved program then comes back with its receipt signed (submitRequest).
 */
export async function checkProgram(ctx: AppContext, program: ProgramInput, submitter: string | null, receiptFor?: string): Promise<Evaluation> {
  const { policy } = await policyInForce(ctx, submitter);
  const now = ctx.now();
  const order = receiptFor === undefined ? undefined : { id: receiptFor, issuer: ctx.issuer, now, key: (await ctx.keys.keyring(now)).active };
  if (ctx.evaluate !== undefined) return ctx.evaluate(program, policy, order);
  const facts = await ctx.analyze(program);
  return { facts, ...decideAndSign(facts, policy, ctx.manifests(), order) };
}

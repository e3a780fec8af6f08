import type { AppContext, ProgramInput } from "./context.js";
import { askAdvice } from "../policy/index.js";
import type { Policy } from "../policy/index.js";
import { decideAndSign, type ProgramDecision, type ReceiptOrder } from "./decide-and-sign.js";
import { factsGiven, givenToSubmitter, type GivenToSubmitter } from "./given-context.js";
import { policyInForce } from "./policy-in-force.js";

/**
 * Analyze a program and run the policy in force over its facts, recording nothing (`countersign
 * check`, `POST /v1/check`). `submitter`: the token it comes from, whose remembered rules apply
 * (null: only those for every agent), and whose earlier runs' output its literals are matched
 * against (factsGiven). `receiptFor`: the id of the request that will record it;
 * an auto-approved program then comes back with its receipt signed (submitRequest).
 */
export async function checkProgram(
  ctx: AppContext,
  program: ProgramInput,
  submitter: string | null,
  receiptFor?: string,
): Promise<ProgramDecision> {
  const { policy } = await policyInForce(ctx, submitter);
  const now = ctx.now();
  const order =
    receiptFor === undefined
      ? undefined
      : { id: receiptFor, issuer: ctx.issuer, now, key: (await ctx.keys.keyring(now)).active };
  const given = await givenToSubmitter(ctx, submitter, policy);
  const evaluation =
    ctx.evaluate !== undefined
      ? await ctx.evaluate(program, policy, order, (facts) => factsGiven(facts, program, given, policy))
      : await evaluateHere(ctx, program, policy, order, given);
  // Only a dry run is advised: a submission waits for its person anyway.
  if (receiptFor !== undefined || evaluation.decision.kind !== "ask") return evaluation;
  const advice = askAdvice(evaluation.facts, policy, ctx.manifests());
  return advice === undefined ? evaluation : { ...evaluation, advice };
}

async function evaluateHere(
  ctx: AppContext,
  program: ProgramInput,
  policy: Policy,
  order: ReceiptOrder | undefined,
  given: GivenToSubmitter | null,
): Promise<ProgramDecision> {
  const facts = await factsGiven(await ctx.analyze(program), program, given, policy);
  return { facts, ...decideAndSign(facts, policy, ctx.manifests(), order) };
}

import type { PolicyDecision } from "../model/decision.js";
import type { Facts } from "../model/facts.js";
import { decide } from "../policy/index.js";
import type { AppContext } from "./context.js";

export interface ProgramInput {
  source: string;
  entry: string; // its file name, for messages and the receipt
}

/** Analyze a program and run the policy over its facts without recording anything (`countersign check`). */
export async function checkProgram(ctx: AppContext, program: ProgramInput): Promise<{ facts: Facts; decision: PolicyDecision }> {
  const facts = (await ctx.analyzer()).analyze(program.source, { entry: program.entry });
  return { facts, decision: decide(facts, ctx.policy(), ctx.manifests()) };
}

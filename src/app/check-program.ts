import type { BudgetOptions } from "../analyze/index.js";
import type { PolicyDecision } from "../model/decision.js";
import type { Facts } from "../model/facts.js";
import { decide } from "../policy/index.js";
import type { AppContext } from "./context.js";

export interface ProgramInput {
  source: Uint8Array | string; // the program's bytes (a string: its UTF-8 encoding)
  entry: string; // its file name, for messages and the receipt
  budget?: BudgetOptions; // limits of this analysis, over the analyzer's defaults
}

/** Analyze a program and run the policy over its facts without recording anything (`countersign check`). */
export async function checkProgram(ctx: AppContext, program: ProgramInput): Promise<{ facts: Facts; decision: PolicyDecision }> {
  const facts = (await ctx.analyzer()).analyze(program.source, { entry: program.entry, ...(program.budget === undefined ? {} : { budget: program.budget }) });
  return { facts, decision: decide(facts, ctx.policy(), ctx.manifests()) };
}

import { markPasted } from "../given/index.js";
import type { Facts, GivenText } from "../model/index.js";
import type { Policy } from "../policy/index.js";
import type { AppContext, ProgramInput } from "./context.js";

/**
 * What the submitter's earlier runs gave it back, within the policy's lifetime: null for a check
 * that comes from no submitter (nothing is read, nothing marked).
 */
export async function givenToSubmitter(ctx: AppContext, submitter: string | null, policy: Policy): Promise<GivenText[] | null> {
  if (submitter === null) return null;
  const since = ctx.now().getTime() - policy.givenHours * 3_600_000;
  return (await ctx.store()).givenTo(submitter, since);
}

/** The facts of `program` read in the light of what its agent was given (markPasted): its text and its agent manifests' are searched. */
export function factsGiven(facts: Facts, program: ProgramInput, given: readonly GivenText[] | null, policy: Policy): Facts {
  if (given === null) return facts;
  const texts = [typeof program.source === "string" ? program.source : new TextDecoder().decode(program.source), ...(program.manifests ?? []).map((m) => m.text)];
  return markPasted(facts, texts, given, { ownAddresses: policy.ownAddresses });
}

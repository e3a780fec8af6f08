import { handlesTakenUp, markPasted, resolveHandles, type KnownHandle } from "../given/index.js";
import type { Facts, GivenText } from "../model/index.js";
import type { Policy } from "../policy/index.js";
import type { AppContext, ProgramInput } from "./context.js";

/** What a submitter was given: the untrusted texts of its runs' output, and the handles held for it. */
export interface GivenToSubmitter {
  texts: GivenText[];
  handle: (id: string) => Promise<KnownHandle | undefined>;
}

/**
 * What the submitter's earlier runs gave it back, within the policy's lifetime: null for a check
 * that comes from no submitter (nothing is read, nothing marked, no handle known).
 */
export async function givenToSubmitter(ctx: AppContext, submitter: string | null, policy: Policy): Promise<GivenToSubmitter | null> {
  if (submitter === null) return null;
  const store = await ctx.store();
  const since = ctx.now().getTime() - policy.givenHours * 3_600_000;
  return {
    texts: await store.givenTo(submitter, since),
    handle: async (id) => {
      const held = await store.readHandle(id, submitter);
      return held === undefined ? undefined : { from: held.from, request: held.request_id };
    },
  };
}

/**
 * The facts of `program` as the policy reads them for its agent: the handles it takes up made
 * exact (resolveHandles; one not held for this agent refuses the program), and its literals read
 * against what the agent was given (markPasted: its text and its agent manifests' are searched).
 */
export async function factsGiven(facts: Facts, program: ProgramInput, given: GivenToSubmitter | null, policy: Policy): Promise<Facts> {
  const ids = handlesTakenUp(facts);
  const known = new Map<string, KnownHandle>();
  for (const id of ids) {
    const held = given === null ? undefined : await given.handle(id);
    if (held !== undefined) known.set(id, held);
  }
  const exact = ids.length === 0 ? facts : resolveHandles(facts, known);
  if (given === null) return exact;
  const texts = [typeof program.source === "string" ? program.source : new TextDecoder().decode(program.source), ...(program.manifests ?? []).map((m) => m.text)];
  return markPasted(exact, texts, given.texts, { ownAddresses: policy.ownAddresses });
}

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
export async function givenToSubmitter(
  ctx: AppContext,
  submitter: string | null,
  policy: Policy,
): Promise<GivenToSubmitter | null> {
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

// The facts read for the last record: a repeated program is read once per change to what its
// agent was given, and the authority's decision thread, which keeps the facts it has seen, is
// handed the same object again rather than a new one for every submission.
const marked = new WeakMap<Facts, { key: string; facts: Facts }>();

/**
 * The facts of `program` as the policy reads them for its agent: the handles it takes up made
 * exact (resolveHandles; one not held for this agent refuses the program), and its literals read
 * against what the agent was given (markPasted: its text and its agent manifests' are searched).
 * Without a submitter (a local check) nothing is read: the facts are the analysis's own.
 */
export async function factsGiven(
  facts: Facts,
  program: ProgramInput,
  given: GivenToSubmitter | null,
  policy: Policy,
): Promise<Facts> {
  if (given === null) return facts;
  const ids = handlesTakenUp(facts);
  const known = new Map<string, KnownHandle>();
  for (const id of ids) {
    const held = await given.handle(id);
    if (held !== undefined) known.set(id, held);
  }
  const exact = ids.length === 0 ? facts : resolveHandles(facts, known);
  if (given.texts.length === 0) return exact; // nothing given: no context to say, nothing to mark
  // Rows are never rewritten: which requests gave the texts says which texts they are.
  const key = `${[...new Set(given.texts.map((t) => t.request))].join(" ")}\n${policy.ownAddresses.join(" ")}`;
  const kept = marked.get(exact);
  if (kept?.key === key) return kept.facts;
  const texts = [
    typeof program.source === "string" ? program.source : new TextDecoder().decode(program.source),
    ...(program.manifests ?? []).map((m) => m.text),
  ];
  const read = markPasted(exact, texts, given.texts, { ownAddresses: policy.ownAddresses });
  marked.set(exact, { key, facts: read });
  return read;
}

import { givenOf } from "../given/index.js";
import type { RunOutput, ShownOutput } from "../model/index.js";
import type { AppContext } from "./context.js";
import { conflict, notFound } from "./not-found.js";

/**
 * What a run of the submitter's approved request gave back, recorded before the agent sees any of
 * it: the untrusted texts of its value, logs and error (givenOf) are kept against the agent's
 * later programs. Once per request: a second record is a conflict, so that a run's record is never
 * rewritten (nor a second run's output passed off under the first's approval). Answers what the
 * agent may see.
 */
export async function recordRunOutput(ctx: AppContext, token: string, id: string, output: RunOutput): Promise<ShownOutput> {
  const store = await ctx.store();
  const request = await store.get(id);
  if (request === null || request.token !== token) throw notFound("request", id);
  if (request.status !== "approved") throw conflict(id, `request ${id} is ${request.status}: only an approved request runs and has output to record`, { status: request.status });
  const texts = givenOf(output, request.facts, id);
  const recorded = await store.recordGiven({ token, request_id: id, texts, ...(output.session === undefined ? {} : { session: output.session }) });
  if (!recorded) throw conflict(id, `the output of request ${id} is recorded already: a request runs once`);
  return { value: output.value, logs: output.logs, ...(output.thrown === undefined ? {} : { thrown: output.thrown }) };
}

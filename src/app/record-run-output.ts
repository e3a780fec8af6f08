import { givenOf, quarantineValue, withheldText } from "../given/index.js";
import { randomToken, type RunOutput, type ShownOutput } from "../model/index.js";
import { handleOps } from "../policy/index.js";
import type { AppContext } from "./context.js";
import { conflict, notFound } from "./not-found.js";
import { policyInForce } from "./policy-in-force.js";

/**
 * What a run of the submitter's approved request gave back, recorded before the agent sees any of
 * it. The policy's `handles` ops decide what is held back: their untrusted parts of the value, and
 * then the logs and the error's message, become handles (quarantineValue, withheldText) kept for
 * this submitter. What the agent does see, its untrusted texts (givenOf), is kept against the
 * agent's later programs. Once per request: a second record is a conflict, so that a run's record
 * is never rewritten (nor a second run's output passed off under the first's approval). Answers
 * what the agent may see.
 */
export async function recordRunOutput(
  ctx: AppContext,
  token: string,
  id: string,
  output: RunOutput,
): Promise<ShownOutput> {
  const store = await ctx.store();
  const request = await store.get(id);
  if (request === null || request.token !== token) throw notFound("request", id);
  if (request.status !== "approved")
    throw conflict(id, `request ${id} is ${request.status}: only an approved request runs and has output to record`, {
      status: request.status,
    });
  const ops = handleOps((await policyInForce(ctx, token)).policy);
  const mintId = () => randomToken(16);
  const value = quarantineValue(output.value, request.facts.result?.parts ?? [], ops, mintId);
  const text = withheldText(
    { logs: output.logs, ...(output.thrown === undefined ? {} : { thrown: output.thrown }) },
    request.facts,
    value.held,
    ops,
    mintId,
  );
  const shown: ShownOutput = { value: value.shown, ...text.shown };
  // Held text is shown as descriptions, which are ours: only what the agent reads is remembered.
  const texts = givenOf(text.held.length > 0 ? { value: value.shown, logs: [] } : shown, request.facts, id, [
    request.source,
    request.agent_manifests ?? "",
  ]);
  const recorded = await store.recordGiven({
    token,
    request_id: id,
    texts,
    ...(output.session === undefined ? {} : { session: output.session }),
  });
  if (!recorded) throw conflict(id, `the output of request ${id} is recorded already: a request runs once`);
  const held = [...value.held, ...text.held];
  if (held.length > 0) await store.putHandles(held.map((h) => ({ ...h, submitter: token, request_id: id })));
  return shown;
}

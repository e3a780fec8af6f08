import type { KeyObject } from "node:crypto";
import { decideAndSign } from "../app/index.js";
import type { AgentActions, ManifestSet } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import type { Facts } from "../model/index.js";
import type { Policy } from "../policy/index.js";
import type { IssuedReceipt } from "../receipt/index.js";
import { FactsCache } from "./facts-cache.js";

/**
 * One submission's evaluation as an analysis thread gets it. The policy and the signing key are
 * sent only when they differ from the thread's last (`value`/`privateKey` present), so that a
 * repeated program costs the event loop a small message each way.
 */
export interface EvaluateJob {
  kind: "evaluate";
  id: number;
  source: Uint8Array | string;
  entry: string;
  agent: AgentActions | null;
  policy: { id: number; value?: Policy };
  order: { id: string; issuer: string; now: number; key: { kid: string; privateKey?: KeyObject } } | null;
}

/** The answer, as text the event loop parses once per distinct value; `refused`: a CountersignError of the decision or signing. */
export type Evaluated =
  | { facts: string; decision: string; receipt?: IssuedReceipt }
  | { refused: { class: CountersignError["class"]; boundary: CountersignError["boundary"]; message: string; details?: Record<string, unknown> } };

/**
 * The thread's side of evaluate: facts from its own cache (keyed like the authority's: program
 * bytes, entry and agent manifests; the thread's manifests and analyzer are fixed) or analyzed,
 * then decided anew by the policy it was sent, and signed when a receipt was ordered.
 */
export function createEvaluator(manifests: ManifestSet, analyze: (source: Uint8Array | string, entry: string, agent: AgentActions | null) => Facts): (job: EvaluateJob) => Promise<Evaluated> {
  const cache = new FactsCache();
  const texts = new WeakMap<Facts, string>();
  let policy: { id: number; value: Policy } | undefined;
  let key: { kid: string; privateKey: KeyObject } | undefined;
  return async (job) => {
    if (job.policy.value !== undefined) policy = { id: job.policy.id, value: job.policy.value };
    if (job.order?.key.privateKey !== undefined) key = { kid: job.order.key.kid, privateKey: job.order.key.privateKey };
    if (policy?.id !== job.policy.id) throw new Error(`policy ${job.policy.id} was never sent to this thread`);
    if (job.order !== null && key?.kid !== job.order.key.kid) throw new Error(`signing key ${job.order.key.kid} was never sent to this thread`);
    const program = { source: job.source, entry: job.entry };
    const facts = await cache.facts(program, { manifests: job.agent?.sha256 ?? "", analyzer: "" }, async (p) => analyze(p.source, p.entry, job.agent));
    let text = texts.get(facts);
    if (text === undefined) texts.set(facts, (text = JSON.stringify(facts)));
    try {
      const order = job.order === null ? undefined : { id: job.order.id, issuer: job.order.issuer, now: new Date(job.order.now), key: key! };
      const { decision, receipt } = decideAndSign(facts, policy.value, manifests, order);
      return { facts: text, decision: JSON.stringify(decision), ...(receipt === undefined ? {} : { receipt }) };
    } catch (err) {
      if (!(err instanceof CountersignError)) throw err;
      return { refused: { class: err.class, boundary: err.boundary, message: err.message, ...(err.details === undefined ? {} : { details: err.details }) } };
    }
  };
}

import { parentPort, workerData } from "node:worker_threads";
import type { ReceiptOrder } from "../app/index.js";
import type { ManifestSet } from "../manifest/index.js";
import type { CountersignError, Facts } from "../model/index.js";
import type { Policy } from "../policy/index.js";
import type { IssuedReceipt } from "../receipt/index.js";
import { threadErrorText } from "./thread-error-text.js";

/** What the decision thread is started with (decision-thread.ts). */
export interface DecisionThreadData {
  kept: number; // how many values it keeps
  answerEveryMs: number; // it answers what it decided so far after this long
}

/** One submission: the ids of its values, and the values the thread does not have yet. */
export interface DecisionJob {
  facts: number;
  policy: number;
  manifests: number;
  key: number | null;
  order: { id: string; issuer: string; now: number } | null;
  values: [number, unknown][];
}

export interface DecisionBatch {
  id: number;
  jobs: DecisionJob[];
}

export type DecisionThreadAnswer =
  | { decision: string; receipt?: IssuedReceipt }
  | {
      refused: {
        class: CountersignError["class"];
        boundary: CountersignError["boundary"];
        message: string;
        details?: Record<string, unknown>;
      };
    }
  | { failed: string };

/** Answers to the jobs of batch `id` from its job `from` on. */
export type FromDecisionThread =
  | { ready: true }
  | { fatal: string }
  | { id: number; from: number; answers: DecisionThreadAnswer[] };

/**
 * The code of the decision thread: it loads app's decideAndSign (the policy and receipt stages;
 * not the compiler), then answers each batch of submissions, in one message unless it takes
 * longer than `answerEveryMs`.
 */
const port = parentPort!;
const send = (message: FromDecisionThread) => port.postMessage(message);
const data = workerData as DecisionThreadData;

async function serve(): Promise<void> {
  const { decideAndSign } = await import("../app/decide-and-sign.js");
  const kept = new Map<number, unknown>();
  const keep = ([id, value]: [number, unknown]) => {
    kept.set(id, value);
    if (kept.size > data.kept) kept.delete(kept.keys().next().value!);
  };
  const answer = (job: DecisionJob): DecisionThreadAnswer => {
    job.values.forEach(keep);
    try {
      const order: ReceiptOrder | undefined =
        job.order === null
          ? undefined
          : { ...job.order, now: new Date(job.order.now), key: kept.get(job.key!) as ReceiptOrder["key"] };
      const { decision, receipt } = decideAndSign(
        kept.get(job.facts) as Facts,
        kept.get(job.policy) as Policy,
        kept.get(job.manifests) as ManifestSet,
        order,
      );
      return receipt === undefined
        ? { decision: JSON.stringify(decision) }
        : { decision: JSON.stringify(decision), receipt };
    } catch (err) {
      if (err instanceof Error && err.name === "CountersignError") {
        const refused = err as CountersignError;
        return {
          refused: {
            class: refused.class,
            boundary: refused.boundary,
            message: refused.message,
            details: refused.details,
          },
        };
      }
      return { failed: threadErrorText(err) };
    }
  };
  port.on("message", (batch: DecisionBatch) => {
    let answers: DecisionThreadAnswer[] = [];
    let from = 0;
    let since = performance.now();
    for (const job of batch.jobs) {
      answers.push(answer(job));
      if (answers.length + from < batch.jobs.length && performance.now() - since >= data.answerEveryMs) {
        send({ id: batch.id, from, answers });
        from += answers.length;
        answers = [];
        since = performance.now();
      }
    }
    send({ id: batch.id, from, answers });
  });
  send({ ready: true });
}

serve().catch((err: unknown) => send({ fatal: threadErrorText(err) }));

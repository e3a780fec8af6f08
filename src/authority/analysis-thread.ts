import { parentPort, workerData } from "node:worker_threads";
import type { Analyzer } from "../analyze/index.js";
import type { AgentActions, ManifestSet } from "../manifest/index.js";
import type { Facts } from "../model/index.js";
import { threadErrorText } from "./thread-error-text.js";

/** What an analysis thread is started with (analysis-worker.ts). */
export interface AnalysisThreadData {
  codeCache: string | null;
  manifests: ManifestSet;
}

/** One program to analyze. */
export interface AnalysisJob {
  id: number;
  source: Uint8Array | string;
  entry: string;
  agent: AgentActions | null;
}

export type FromAnalysisThread =
  | { kind: "ready" }
  | { kind: "done"; id: number; facts: Facts }
  | { kind: "error"; id: number; message: string }
  | { kind: "fatal"; message: string };

/** How many analyzers for agent manifests a thread keeps (an agent resubmitting its program reuses its own). */
const AGENT_ANALYZERS = 4;

/**
 * The code of an analysis thread. It makes one analyzer for the manifests it was started with
 * (the compiler stays warm for every later program), says "ready", then analyzes one program per
 * message. A program that runs past its budget anyway is stopped by terminating the thread
 * (analysis-pool.ts). The analyzer is imported after the code cache is set: the compiler loads
 * through it.
 */
const port = parentPort!;
const send = (message: FromAnalysisThread) => port.postMessage(message);
const data = workerData as AnalysisThreadData;

async function serve(): Promise<void> {
  if (data.codeCache !== null) (await import("../analyze/compile/code-cache.js")).useCodeCache(data.codeCache);
  const { createAnalyzer } = await import("../analyze/index.js");
  const analyzer = createAnalyzer(data.manifests);
  // Programs with agent actions need an API that declares them: one analyzer per agent
  // manifests' hash, the last few kept.
  const withAgent = new Map<string, Analyzer>();
  const analyzerFor = (agent: AgentActions | null): Analyzer => {
    if (agent === null) return analyzer;
    let found = withAgent.get(agent.sha256);
    if (found === undefined) {
      found = createAnalyzer({ ...data.manifests, agent });
      withAgent.set(agent.sha256, found);
      if (withAgent.size > AGENT_ANALYZERS) {
        const [oldest, old] = withAgent.entries().next().value!;
        old.dispose();
        withAgent.delete(oldest);
      }
    }
    return found;
  };
  port.on("message", (job: AnalysisJob) => {
    try {
      send({ kind: "done", id: job.id, facts: analyzerFor(job.agent).analyze(job.source, { entry: job.entry }) });
    } catch (err) {
      send({ kind: "error", id: job.id, message: threadErrorText(err) });
    }
  });
  send({ kind: "ready" });
}

serve().catch((err: unknown) => send({ kind: "fatal", message: threadErrorText(err) }));

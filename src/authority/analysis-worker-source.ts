/**
 * The code of an analysis worker thread (plain CommonJS, started with `eval: true` so that it
 * runs the same from src/ under a TypeScript loader and from dist/). It makes one analyzer for the
 * manifests it was started with (the compiler stays warm for every later program), says "ready",
 * then analyzes one program per message. A program that runs past its budget anyway is stopped
 * by terminating the thread (analysis-pool.ts).
 */
export const ANALYSIS_WORKER_SOURCE = `
"use strict";
const { workerData, parentPort } = require("node:worker_threads");
const text = (err) => String((err && (err.stack || err.message)) || err);
(async () => {
  if (workerData.tsx !== null) (await import(workerData.tsx)).register();
  if (workerData.codeCache !== null) (await import(workerData.modules.codeCache)).useCodeCache(workerData.codeCache);
  const { createAnalyzer } = await import(workerData.modules.analyze);
  const analyzer = createAnalyzer(workerData.manifests);
  // Programs with agent actions need an API that declares them: one analyzer per agent
  // manifests' hash, the last few kept (an agent resubmitting its program reuses its own).
  const withAgent = new Map();
  const analyzerFor = (agent) => {
    if (agent === null) return analyzer;
    let found = withAgent.get(agent.sha256);
    if (found === undefined) {
      found = createAnalyzer({ ...workerData.manifests, agent });
      withAgent.set(agent.sha256, found);
      if (withAgent.size > 4) {
        const [oldest, old] = withAgent.entries().next().value;
        old.dispose();
        withAgent.delete(oldest);
      }
    }
    return found;
  };
  parentPort.on("message", (job) => {
    try {
      parentPort.postMessage({ kind: "done", id: job.id, facts: analyzerFor(job.agent).analyze(job.source, { entry: job.entry }) });
    } catch (err) {
      parentPort.postMessage({ kind: "error", id: job.id, message: text(err) });
    }
  });
  parentPort.postMessage({ kind: "ready" });
})().catch((err) => parentPort.postMessage({ kind: "fatal", message: text(err) }));
`;

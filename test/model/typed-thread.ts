// A thread's module in TypeScript (thread-module.test.ts): it answers with what it was started with.
import { parentPort, workerData, resourceLimits } from "node:worker_threads";

const doubled: number = (workerData as { n: number }).n * 2;
parentPort!.postMessage({ doubled, maxOldGenerationSizeMb: resourceLimits.maxOldGenerationSizeMb });

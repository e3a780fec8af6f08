// A worker that parks inside a node:vm script run with breakOnSigint, so that Node's SIGINT helper
// thread stays up while the measuring thread runs its own scripts (sandbox-plugin-call-measure.mjs).
// workerData is an Int32Array on shared memory: [1] is set once parked, [0] set (and notified) to let it go.
import { runInNewContext } from "node:vm";
import { workerData } from "node:worker_threads";

Atomics.store(workerData, 1, 1);
runInNewContext("Atomics.wait(flags, 0, 0)", { flags: workerData, Atomics }, { breakOnSigint: true });

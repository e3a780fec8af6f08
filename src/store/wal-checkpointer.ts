import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * The checkpointer thread (plain CommonJS, `eval: true`, so that it runs the same from src/ and
 * dist/): its own connection to the file, a PASSIVE checkpoint every `intervalMs` (it never
 * waits for or blocks the writer or readers), closed on "close".
 */
const SOURCE = `
"use strict";
const { workerData, parentPort } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma("synchronous = NORMAL");
const timer = setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // a full or read-only disk: the writer's own commits report it; the writer checkpoints past its limit
  }
}, workerData.intervalMs);
parentPort.on("message", () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

const driverModule = createRequire(import.meta.url).resolve("better-sqlite3");

export interface WalCheckpointer {
  /** Stop checkpointing; resolves once the thread's connection is closed. */
  stop(): Promise<void>;
}

/**
 * Copy the WAL of `path` back into the database on a thread of its own. A checkpoint writes every
 * page changed since the last one and syncs the file; run by the connection that commits (SQLite's
 * default) it held up every request behind that commit, about a tenth of the authority's event
 * loop under load. `onExit` is called if the thread stops unasked, so that the writer can
 * checkpoint itself again.
 */
export function startWalCheckpointer(path: string, intervalMs: number, onExit: () => void): WalCheckpointer {
  const worker = new Worker(SOURCE, { eval: true, workerData: { driver: driverModule, path, intervalMs } });
  worker.unref(); // never what keeps a process alive
  let stopping = false;
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  worker.once("error", () => undefined); // reported through onExit: it is what the writer acts on
  void exited.then(() => {
    if (!stopping) onExit();
  });
  return {
    async stop() {
      stopping = true;
      worker.ref(); // a process whose last work is closing the store waits for the thread's connection to close
      worker.postMessage("close");
      await exited;
    },
  };
}

import { Worker } from "node:worker_threads";
import { threadModule } from "../model/thread-module.js";
import type { WalCheckpointerData } from "./wal-checkpointer-thread.js";

export interface WalCheckpointer {
  /** Stop checkpointing; resolves once the thread's connection is closed. */
  stop(): Promise<void>;
}

/**
 * Copy the WAL of `path` back into the database on a thread of its own. A checkpoint writes every
 * page changed since the last one and syncs the file; run by the connection that commits (SQLite's
 * default) it held up every request behind that commit, about a tenth of the authority's event
 * loop under load. The thread's code is wal-checkpointer-thread.ts. `onExit` is called if the
 * thread stops unasked, so that the writer can checkpoint itself again.
 */
export function startWalCheckpointer(path: string, intervalMs: number, onExit: () => void): WalCheckpointer {
  const workerData: WalCheckpointerData = { path, intervalMs };
  const worker = new Worker(...threadModule(import.meta.url, "./wal-checkpointer-thread", { workerData }));
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

import Database from "better-sqlite3";
import { parentPort, workerData } from "node:worker_threads";

/** What the checkpointer thread is started with (wal-checkpointer.ts). */
export interface WalCheckpointerData {
  path: string;
  intervalMs: number;
}

/**
 * The code of the checkpointer thread: its own connection to the file, a PASSIVE checkpoint
 * every `intervalMs` (it never waits for or blocks the writer or readers), closed on the first
 * message.
 */
const port = parentPort!;
const { path, intervalMs } = workerData as WalCheckpointerData;
const db = new Database(path);
db.pragma("synchronous = NORMAL");
const timer = setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // a full or read-only disk: the writer's own commits report it; the writer checkpoints past its limit
  }
}, intervalMs);
port.on("message", () => {
  clearInterval(timer);
  db.close();
  port.close();
});

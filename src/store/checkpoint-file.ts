import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CountersignError } from "../model/index.js";
import { writeFileAtomic } from "./atomic-write.js";

/** The newest signed head of the audit chain, kept beside the database rather than in it. */
export const CHECKPOINT_FILE = "audit-checkpoint.jws";

export function checkpointFile(dataDir: string): string {
  return join(dataDir, CHECKPOINT_FILE);
}

/** A checkpoint file's JWS; undefined when there is no such file. Nothing here checks it. */
export function readCheckpointFile(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CountersignError(
      "store_error",
      "store",
      `cannot read the audit checkpoint ${path}: ${(err as Error).message}`,
      { details: { path } },
    );
  }
}

/**
 * Replace the file whole (readers see the old checkpoint or the new one); readable by all: it holds no secret, only a
 * signed hash.
 */
export function writeCheckpointFile(path: string, jws: string): void {
  writeFileAtomic(path, jws + "\n", 0o644);
}

import { readFileSync } from "node:fs";
import { CountersignError } from "../model/index.js";

/** A program file's bytes as they are: the analyzer applies the one UTF-8 rule and hashes exactly these. */
export function readSource(path: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new CountersignError("usage_error", "cli", `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

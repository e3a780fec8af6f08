import { parseArgs, type ParseArgsConfig } from "node:util";
import { usageError } from "./command.js";

/** node:util parseArgs, with its unknown-option and missing-value errors turned into usage errors. */
export function parseFlags<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_")) throw usageError((err as Error).message);
    throw err;
  }
}

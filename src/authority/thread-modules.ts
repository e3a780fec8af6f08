import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

// From src/ (tests) a thread imports TypeScript modules through tsx; from dist/, plain JavaScript.
const FROM_SOURCE = import.meta.url.endsWith(".ts");

/** The URL a worker thread imports the module at `path` (relative to this folder, without extension) from. */
export function threadModule(path: string): string {
  return new URL(`${path}${FROM_SOURCE ? ".ts" : ".js"}`, import.meta.url).href;
}

/** tsx's ESM API for a thread to register first (its exports resolve to the CommonJS build from here); a dev dependency, needed only from src/. */
export const THREAD_LOADER = FROM_SOURCE ? pathToFileURL(join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/esm/api/index.mjs")).href : null;

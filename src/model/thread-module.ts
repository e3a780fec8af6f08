import type { WorkerOptions } from "node:worker_threads";

/**
 * A preload that registers tsx's loader in a thread started from src/: Node 20 threads share no
 * loader with the thread that starts them, and tsx's own entry registers in the main thread only.
 */
const TSX_IN_THREAD = new URL("./tsx-in-thread.mjs", import.meta.url).href;

/**
 * The arguments of `new Worker(...)` for the thread whose code is the module `name` (a path
 * relative to `base`, the caller's import.meta.url, without its extension), with `options`.
 * Compiled, that is the .js file beside the caller. From src/ (the tests, scripts run with tsx)
 * it is the .ts file, loaded after tsx's loader: the thread's flags are then `options.execArgv`
 * (else the parent's, as a thread's would be) and the preload.
 */
export function threadModule(base: string, name: string, options: WorkerOptions): [URL, WorkerOptions] {
  if (!base.endsWith(".ts")) return [new URL(`${name}.js`, base), options];
  return [
    new URL(`${name}.ts`, base),
    { ...options, execArgv: [...(options.execArgv ?? process.execArgv), "--import", TSX_IN_THREAD] },
  ];
}

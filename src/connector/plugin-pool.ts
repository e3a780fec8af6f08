import type { LoadedConnector } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import type { Json } from "../model/index.js";
import type { Capabilities } from "./capabilities.js";
import {
  hostHandlers,
  SUCCESS_ANSWERS,
  SYNC_HOST_FUNCTIONS,
  type CallState,
  type HostHandler,
} from "./host-functions.js";
import type { Limits } from "./limits.js";
import { checkPlugin, startInThread, startWorker, type CheckedPlugin } from "./load-plugin.js";
import { InThreadPlugin } from "./plugin-in-thread.js";
import { pluginOutput } from "./plugin-output.js";
import {
  PluginWorkerTimeout,
  PluginWorkerTooLarge,
  type PluginWorker,
  type WorkerCallResult,
} from "./plugin-worker.js";

/**
 * How long a call may run in the host's thread, blocking its event loop, before it is stopped
 * there. The connectors' calls take well under a ms; one that runs longer is made again in a worker.
 */
export const IN_THREAD_SLICE_MS = 50;

/**
 * Loaded plugins, reused across calls. A plugin whose host functions all answer synchronously
 * (the fs ones) runs in the host's thread (plugin-in-thread.ts), each call inside a slice of
 * IN_THREAD_SLICE_MS, with no thread hand-off. Any other (http_request answers with a promise),
 * and one that has once run past its slice, runs in a worker thread of its own (plugin-worker.ts),
 * where a call may take its whole deadline while the host's event loop goes on, and crosses
 * threads at least twice. A call that runs past its slice having changed nothing (its writes wait for
 * its end, see plugin-in-thread.ts) is made again in the worker with the rest of its deadline;
 * one that has changed something (a write made before a later host function call) is stopped
 * there, as it cannot be made twice. A worker that timed out or trapped is closed and dropped;
 * the next call loads (and hash-checks) the plugin again.
 */
export interface PluginPool {
  /**
   * Call export `fn` of the connector's plugin with `input`; resolves to its JSON output. Calls
   * of one `scope` (a run's verified receipt) may share a plugin instance; a call of another
   * scope, or without one, gets an instance no other call has used, so that nothing a plugin
   * keeps reaches another run.
   */
  call(
    connector: LoadedConnector,
    fn: string,
    input: Json,
    caps: Capabilities,
    limits: Limits,
    scope?: object,
  ): Promise<Json>;
  close(): Promise<void>;
}

interface Loaded {
  checked: Promise<CheckedPlugin>;
  plugin: Promise<InThreadPlugin | PluginWorker>;
  state: CallState;
  abort: AbortController; // aborted only with a call past its deadline, after which the entry is dropped
  handlers: Record<string, HostHandler>;
  queue: Promise<unknown>; // calls run one at a time: a plugin is not reentrant
  scope: object | undefined; // the scope of the instance's last call
}

const PLUGIN_ERROR = "Plugin-originated error: ";

/**
 * A plugin's own error: it may claim external_api_error (with the provider's status); anything else is connector_error.
 */
function pluginError(connector: string, fn: string, text: string): CountersignError {
  let claimed: { class?: unknown; message?: unknown; status?: unknown } = {};
  try {
    claimed = JSON.parse(text);
  } catch {
    claimed = { message: text };
  }
  const message = `${connector}.${fn}: ${typeof claimed.message === "string" ? claimed.message : "failed"}`;
  if (claimed.class === "external_api_error" && typeof claimed.status === "number") {
    return new CountersignError("external_api_error", "provider", message, {
      retriable: claimed.status >= 500 || claimed.status === 429,
      details: { status: claimed.status },
    });
  }
  return new CountersignError("connector_error", "connector", message);
}

export function createPluginPool(): PluginPool {
  const loaded = new Map<string, Loaded>();
  const outgrown = new Set<string>(); // connector files whose plugin ran past its slice in the host's thread

  function get(connector: LoadedConnector, limits: Limits): Loaded {
    let entry = loaded.get(connector.file);
    if (entry === undefined) {
      const abort = new AbortController();
      const state: CallState = { caps: null, limits, signal: abort.signal, hostError: null };
      const handlers = hostHandlers(state);
      const checked = checkPlugin(connector, limits, Object.keys(handlers));
      const plugin = checked.then((c) => start(connector, c, handlers));
      entry = { checked, plugin, state, abort, handlers, queue: Promise.resolve(), scope: undefined };
      loaded.set(connector.file, entry);
      plugin.catch(() => loaded.delete(connector.file)); // a failed load is retried next time
    }
    return entry;
  }

  function start(
    connector: LoadedConnector,
    checked: CheckedPlugin,
    handlers: Record<string, HostHandler>,
  ): Promise<InThreadPlugin | PluginWorker> {
    if (outgrown.has(connector.file) || !checked.imports.every((name) => SYNC_HOST_FUNCTIONS.has(name)))
      return startWorker(connector, checked, Object.keys(handlers));
    return startInThread(
      connector,
      checked,
      Object.fromEntries(Object.entries(handlers).filter(([name]) => SYNC_HOST_FUNCTIONS.has(name))),
      SUCCESS_ANSWERS,
    );
  }

  async function drop(connector: LoadedConnector, entry: Loaded): Promise<void> {
    if (loaded.get(connector.file) === entry) loaded.delete(connector.file);
    await (await entry.plugin).close();
  }

  /**
   * A call in the host's thread that ran past its slice: the plugin moves to a worker for good,
   * and the call is made again there unless it has written something or its deadline has passed.
   */
  async function outOfSlice(
    entry: Loaded,
    connector: LoadedConnector,
    fn: string,
    input: string,
    changed: boolean,
    deadline: number,
    limits: Limits,
  ): Promise<WorkerCallResult> {
    outgrown.add(connector.file);
    const thread = entry.plugin;
    const worker = entry.checked.then((c) => startWorker(connector, c, Object.keys(entry.handlers)));
    entry.plugin = worker;
    worker.catch(() => loaded.get(connector.file) === entry && loaded.delete(connector.file));
    await (await thread).close();
    if (performance.now() >= deadline) throw new PluginWorkerTimeout("the plugin ran past its deadline");
    if (changed) {
      throw new CountersignError(
        "resource_limit_exceeded",
        "connector",
        `${connector.name}.${fn} ran longer than ${IN_THREAD_SLICE_MS} ms in the host's thread after a write, and was stopped (a call that has written is not made again)`,
        { details: { slice_ms: IN_THREAD_SLICE_MS } },
      );
    }
    entry.state.hostError = null; // what the stopped attempt's host functions said does not count
    return (await worker).call(
      fn,
      input,
      deadline,
      (name, request) => entry.handlers[name]!(request),
      true,
      limits.maxHostMemoryBytes,
    );
  }

  async function callOnce(
    entry: Loaded,
    connector: LoadedConnector,
    fn: string,
    input: Json,
    caps: Capabilities,
    limits: Limits,
    scope: object | undefined,
  ): Promise<Json> {
    const plugin = await entry.plugin;
    const fresh = scope === undefined || scope !== entry.scope;
    entry.scope = scope;
    Object.assign(entry.state, { caps, limits, hostError: null });
    const text = JSON.stringify(input);
    const deadline = performance.now() + limits.timeoutMs;
    try {
      let result: WorkerCallResult;
      let inWorker = !(plugin instanceof InThreadPlugin); // where the call ended
      if (plugin instanceof InThreadPlugin) {
        const outcome = await plugin.call(
          fn,
          text,
          Math.min(IN_THREAD_SLICE_MS, limits.timeoutMs),
          fresh,
          limits.maxHostMemoryBytes,
        );
        inWorker = "slice" in outcome;
        result =
          "slice" in outcome
            ? await outOfSlice(entry, connector, fn, text, outcome.changed, deadline, limits)
            : outcome;
      } else {
        // checkPlugin checked the imports
        const answer = (name: string, request: string) => entry.handlers[name]!(request);
        result = await plugin.call(fn, text, deadline, answer, fresh, limits.maxHostMemoryBytes);
      }
      if (entry.state.hostError !== null) throw entry.state.hostError;
      if (!result.ok) {
        if (result.message.startsWith(PLUGIN_ERROR))
          throw pluginError(connector.name, fn, result.message.slice(PLUGIN_ERROR.length));
        // A trap may leave the module's state inconsistent: a worker is dropped (an instance in
        // the host's thread is replaced after any failed call, see plugin-in-thread.ts).
        if (inWorker) await drop(connector, entry);
        if (result.overLimit) {
          throw new CountersignError(
            "resource_limit_exceeded",
            "connector",
            `${connector.name}.${fn}: ${result.message} and was stopped`,
            {
              details: { host_memory_bytes: limits.maxHostMemoryBytes },
            },
          );
        }
        throw new CountersignError(
          "connector_error",
          "connector",
          `${connector.name}.${fn}: plugin trapped: ${result.message}`,
        );
      }
      return pluginOutput(connector.name, fn, result.output);
    } catch (err) {
      if (err instanceof CountersignError) throw err;
      if (err instanceof PluginWorkerTimeout) {
        entry.abort.abort(); // a host function still running (an HTTP request) stops too
        await drop(connector, entry);
        throw new CountersignError(
          "resource_limit_exceeded",
          "connector",
          `${connector.name}.${fn} ran longer than ${limits.timeoutMs} ms and was stopped`,
          {
            details: { timeout_ms: limits.timeoutMs },
          },
        );
      }
      await drop(connector, entry);
      if (err instanceof PluginWorkerTooLarge)
        throw new CountersignError("resource_limit_exceeded", "connector", `${connector.name}.${fn}: ${err.message}`);
      throw new CountersignError(
        "connector_error",
        "connector",
        `${connector.name}.${fn}: plugin worker failed: ${(err as Error).message}`,
      );
    } finally {
      entry.state.caps = null;
    }
  }

  return {
    call(connector, fn, input, caps, limits, scope) {
      const entry = get(connector, limits);
      const result = entry.queue.then(() => callOnce(entry, connector, fn, input, caps, limits, scope));
      entry.queue = result.catch(() => undefined);
      return result;
    },
    async close() {
      const entries = [...loaded.values()];
      loaded.clear();
      await Promise.all(
        entries.map((e) =>
          e.plugin.then(
            (p) => p.close(),
            () => undefined,
          ),
        ),
      );
    },
  };
}

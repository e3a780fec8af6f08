import type { LoadedConnector } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import type { Json } from "../model/index.js";
import type { Capabilities } from "./capabilities.js";
import { hostHandlers, type CallState, type HostHandler } from "./host-functions.js";
import type { Limits } from "./limits.js";
import { loadPlugin } from "./load-plugin.js";
import { pluginOutput } from "./plugin-output.js";
import { PluginWorkerTimeout, PluginWorkerTooLarge, type PluginWorker } from "./plugin-worker.js";

/**
 * Loaded plugins, reused across calls (a worker costs tens of ms to start). A plugin that timed
 * out or trapped is closed and dropped; the next call loads (and hash-checks) it again.
 */
export interface PluginPool {
  /**
   * Call export `fn` of the connector's plugin with `input`; resolves to its JSON output. Calls
   * of one `scope` (a run's verified receipt) may share a plugin instance; a call of another
   * scope, or without one, gets an instance no other call has used, so that nothing a plugin
   * keeps reaches another run.
   */
  call(connector: LoadedConnector, fn: string, input: Json, caps: Capabilities, limits: Limits, scope?: object): Promise<Json>;
  close(): Promise<void>;
}

interface Loaded {
  plugin: Promise<PluginWorker>;
  state: CallState;
  abort: AbortController; // aborted only with a call past its deadline, after which the entry is dropped
  handlers: Record<string, HostHandler>;
  queue: Promise<unknown>; // calls run one at a time: a plugin is not reentrant
  scope: object | undefined; // the scope of the instance's last call
}

const PLUGIN_ERROR = "Plugin-originated error: ";

/** A plugin's own error: it may claim external_api_error (with the provider's status); anything else is connector_error. */
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

  function get(connector: LoadedConnector, limits: Limits): Loaded {
    let entry = loaded.get(connector.file);
    if (entry === undefined) {
      const abort = new AbortController();
      const state: CallState = { caps: null, limits, signal: abort.signal, hostError: null };
      const plugin = loadPlugin(connector, limits, state);
      entry = { plugin, state, abort, handlers: hostHandlers(state), queue: Promise.resolve(), scope: undefined };
      loaded.set(connector.file, entry);
      plugin.catch(() => loaded.delete(connector.file)); // a failed load is retried next time
    }
    return entry;
  }

  async function drop(connector: LoadedConnector, entry: Loaded): Promise<void> {
    if (loaded.get(connector.file) === entry) loaded.delete(connector.file);
    await (await entry.plugin).close();
  }

  async function callOnce(entry: Loaded, connector: LoadedConnector, fn: string, input: Json, caps: Capabilities, limits: Limits, scope: object | undefined): Promise<Json> {
    const plugin = await entry.plugin;
    const fresh = scope === undefined || scope !== entry.scope;
    entry.scope = scope;
    Object.assign(entry.state, { caps, limits, hostError: null });
    const answer = (name: string, request: string) => entry.handlers[name]!(request); // load-plugin checked the imports
    try {
      const result = await plugin.call(fn, JSON.stringify(input), performance.now() + limits.timeoutMs, answer, fresh, limits.maxHostMemoryBytes);
      if (entry.state.hostError !== null) throw entry.state.hostError;
      if (!result.ok) {
        if (result.message.startsWith(PLUGIN_ERROR)) throw pluginError(connector.name, fn, result.message.slice(PLUGIN_ERROR.length));
        await drop(connector, entry); // a trap may leave the module's state inconsistent
        if (result.overLimit) {
          throw new CountersignError("resource_limit_exceeded", "connector", `${connector.name}.${fn}: ${result.message} and was stopped`, {
            details: { host_memory_bytes: limits.maxHostMemoryBytes },
          });
        }
        throw new CountersignError("connector_error", "connector", `${connector.name}.${fn}: plugin trapped: ${result.message}`);
      }
      return pluginOutput(connector.name, fn, result.output);
    } catch (err) {
      if (err instanceof CountersignError) throw err;
      if (err instanceof PluginWorkerTimeout) {
        entry.abort.abort(); // a host function still running (an HTTP request) stops too
        await drop(connector, entry);
        throw new CountersignError("resource_limit_exceeded", "connector", `${connector.name}.${fn} ran longer than ${limits.timeoutMs} ms and was stopped`, {
          details: { timeout_ms: limits.timeoutMs },
        });
      }
      await drop(connector, entry);
      if (err instanceof PluginWorkerTooLarge) throw new CountersignError("resource_limit_exceeded", "connector", `${connector.name}.${fn}: ${err.message}`);
      throw new CountersignError("connector_error", "connector", `${connector.name}.${fn}: plugin worker failed: ${(err as Error).message}`);
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
      await Promise.all(entries.map((e) => e.plugin.then((p) => p.close(), () => undefined)));
    },
  };
}

import type { CallContext } from "@extism/extism";
import type { z } from "zod";
import { CountersignError } from "../model/index.js";
import type { Capabilities } from "./capabilities.js";
import { FsPathRequest, FsWriteRequest, fsList, fsRead, fsWrite } from "./host-fs.js";
import { HttpRequest, httpRequest } from "./host-http.js";
import type { Limits } from "./limits.js";

/**
 * What the host functions of one loaded plugin act on during the current call. The plugin is not
 * reentrant, so one mutable slot per plugin is enough; `caps` is null between calls.
 */
export interface CallState {
  caps: Capabilities | null;
  limits: Limits;
  signal: AbortSignal;
  hostError: CountersignError | null; // the first refusal or failure of this call: it decides the call's error
}

type Handler<S extends z.ZodType> = (caps: Capabilities, request: z.infer<S>) => Promise<object>;

/** A host function's body, text in and text out. */
export type HostHandler = (request: string) => Promise<string>;

/**
 * Wrap an operation as a host function: JSON in, `{ ok: true, ... }` or `{ ok: false, error }`
 * out. It never throws, because a throw would kill the plugin's worker.
 */
function hostHandler<S extends z.ZodType>(state: CallState, name: string, schema: S, handler: Handler<S>): HostHandler {
  return async (text) => {
    let answer: object;
    try {
      const caps = state.caps;
      if (caps === null) throw new CountersignError("connector_error", "connector", `${name} called outside a connector call`);
      const parsed = schema.safeParse(JSON.parse(text));
      if (!parsed.success) throw new CountersignError("connector_error", "connector", `${caps.connector}: malformed ${name} request`);
      answer = { ok: true, ...(await handler(caps, parsed.data)) };
    } catch (err) {
      const error = err instanceof CountersignError ? err : new CountersignError("connector_error", "connector", `${name}: ${(err as Error).message}`);
      state.hostError ??= error;
      answer = { ok: false, error: { class: error.class, message: error.message } };
    }
    return JSON.stringify(answer);
  };
}

/** The functions a connector may import from "extism:host/user", by name. */
export function hostHandlers(state: CallState): Record<string, HostHandler> {
  return {
    http_request: hostHandler(state, "http_request", HttpRequest, (caps, r) => httpRequest(caps, state.limits, r, state.signal)),
    fs_read: hostHandler(state, "fs_read", FsPathRequest, (caps, r) => fsRead(caps, state.limits, r.path)),
    fs_list: hostHandler(state, "fs_list", FsPathRequest, (caps, r) => fsList(caps, r.path)),
    fs_write: hostHandler(state, "fs_write", FsWriteRequest, (caps, r) => fsWrite(caps, r.path, r.content)),
  };
}

/** The same functions as Extism host functions, for a plugin created in this thread. */
export function hostFunctions(state: CallState) {
  const user: Record<string, (context: CallContext, offset: bigint) => Promise<bigint>> = {};
  for (const [name, handle] of Object.entries(hostHandlers(state))) {
    user[name] = async (context, offset) => context.store(await handle(context.read(offset)?.text() ?? "null"));
  }
  return { "extism:host/user": user };
}

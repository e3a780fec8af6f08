import type { CallContext } from "@extism/extism";
import type { z } from "zod";
import { CountersignError } from "../model/index.js";
import type { Capabilities } from "./capabilities.js";
import {
  FsMissingDirsRequest,
  FsPathRequest,
  FsWriteRequest,
  fsList,
  fsMakeDir,
  fsMissingDirs,
  fsRead,
  fsWrite,
} from "./host-fs.js";
import { HttpRequest, httpRequest } from "./host-http.js";
import type { Limits } from "./limits.js";
import { METER_FUNCTION } from "./meter.js";

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

type Handler<S extends z.ZodType> = (caps: Capabilities, request: z.infer<S>) => object | Promise<object>;

/**
 * A host function's body, text in and text out. The fs functions answer synchronously (a plugin
 * in the host's thread calls them from inside its wasm, which cannot wait); http_request answers
 * with a promise.
 */
export type HostHandler = (request: string) => string | Promise<string>;

/**
 * The host functions whose every answer is synchronous: a plugin that imports only these may run in the host's thread.
 */
export const SYNC_HOST_FUNCTIONS: ReadonlySet<string> = new Set([
  "fs_read",
  "fs_list",
  "fs_missing_dirs",
  "fs_write",
  "fs_mkdir",
]);

/** The host functions that change nothing: a call that made only these may be made again. */
export const READ_ONLY_HOST_FUNCTIONS: ReadonlySet<string> = new Set(["fs_read", "fs_list", "fs_missing_dirs"]);

/**
 * What a host function that changes something answers when it succeeds, known before it acts
 * (null: ask the function itself, e.g. for a malformed request). A plugin in the host's thread
 * gets this answer at once and the change is made later (see plugin-in-thread.ts); should the
 * change then fail, its error decides the call, as any host function's does.
 */
export type SuccessAnswer = (request: string) => string | null;

export const SUCCESS_ANSWERS: Readonly<Record<string, SuccessAnswer>> = {
  fs_write: (request) => {
    let parsed: ReturnType<typeof FsWriteRequest.safeParse>;
    try {
      parsed = FsWriteRequest.safeParse(JSON.parse(request));
    } catch {
      return null;
    }
    // as fsWrite answers, but for the folders it makes, known once made: the connector takes them from fs_missing_dirs
    return parsed.success ? JSON.stringify({ ok: true, bytes: Buffer.byteLength(parsed.data.content) }) : null;
  },
  fs_mkdir: (request) => {
    let parsed: ReturnType<typeof FsPathRequest.safeParse>;
    try {
      parsed = FsPathRequest.safeParse(JSON.parse(request));
    } catch {
      return null;
    }
    // as fsMakeDir answers, but for the folders made: see fs_write
    return parsed.success ? JSON.stringify({ ok: true }) : null;
  },
};

/**
 * Wrap an operation as a host function: JSON in, `{ ok: true, ... }` or `{ ok: false, error }`
 * out. It never throws, because a throw would kill the plugin's worker.
 */
function hostHandler<S extends z.ZodType>(state: CallState, name: string, schema: S, handler: Handler<S>): HostHandler {
  const failure = (err: unknown): string => {
    const error =
      err instanceof CountersignError
        ? err
        : new CountersignError("connector_error", "connector", `${name}: ${(err as Error).message}`);
    state.hostError ??= error;
    return JSON.stringify({ ok: false, error: { class: error.class, message: error.message } });
  };
  const success = (answer: object): string => JSON.stringify({ ok: true, ...answer });
  return (text) => {
    let answer: object | Promise<object>;
    try {
      const caps = state.caps;
      if (caps === null)
        throw new CountersignError("connector_error", "connector", `${name} called outside a connector call`);
      const parsed = schema.safeParse(JSON.parse(text));
      if (!parsed.success)
        throw new CountersignError("connector_error", "connector", `${caps.connector}: malformed ${name} request`);
      answer = handler(caps, parsed.data);
    } catch (err) {
      return failure(err);
    }
    return answer instanceof Promise ? answer.then(success, failure) : success(answer);
  };
}

/** The functions a connector may import from "extism:host/user", by name. */
export function hostHandlers(state: CallState): Record<string, HostHandler> {
  return {
    http_request: hostHandler(state, "http_request", HttpRequest, (caps, r) =>
      httpRequest(caps, state.limits, r, state.signal),
    ),
    fs_read: hostHandler(state, "fs_read", FsPathRequest, (caps, r) => fsRead(caps, state.limits, r.path)),
    fs_list: hostHandler(state, "fs_list", FsPathRequest, (caps, r) => fsList(caps, r.path)),
    fs_missing_dirs: hostHandler(state, "fs_missing_dirs", FsMissingDirsRequest, (caps, r) =>
      fsMissingDirs(caps, r.path, r.of),
    ),
    fs_write: hostHandler(state, "fs_write", FsWriteRequest, (caps, r) => fsWrite(caps, r.path, r.content)),
    fs_mkdir: hostHandler(state, "fs_mkdir", FsPathRequest, (caps, r) => fsMakeDir(caps, r.path)),
  };
}

/**
 * The same functions as Extism host functions, for a plugin created in this thread, with the fuel
 * meter's function as a no-op: nothing stops such a plugin (the pool does not use this).
 */
export function hostFunctions(state: CallState) {
  const user: Record<string, (context: CallContext, offset: bigint) => Promise<bigint> | void> = {
    [METER_FUNCTION]: () => undefined,
  };
  for (const [name, handle] of Object.entries(hostHandlers(state))) {
    user[name] = async (context, offset) => context.store(await handle(context.read(offset)?.text() ?? "null"));
  }
  return { "extism:host/user": user };
}

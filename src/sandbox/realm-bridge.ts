import type { Serialize } from "./realm-serializer.js";

/** What the host put on the host global before the bridge is made (see install-host.ts); the bridge adds `call`. */
interface HostObject {
  callLimit: () => void;
  call?: (op: string, args: unknown) => Promise<unknown>;
}

/** What the bridge hands the host, each taken by name (see Bridge in bridge.ts). */
export interface BridgeFunctions {
  getOwnPropertyDescriptor: typeof Object.getOwnPropertyDescriptor;
  getPrototypeOf: typeof Object.getPrototypeOf;
  serialize: Serialize;
  parseJson: (text: string) => unknown;
  makeError: (name: string, message: string, errorClass?: string) => Error;
  take: () => string;
  limit: (calls: number) => void;
  settle: (id: number, ok: boolean, text: string, name?: string, errorClass?: string) => void;
}

/**
 * Made inside the VM once the host's functions are installed (see bridge.ts, which gives it its
 * text). Besides the intrinsics it adds `call` to the host object for the trusted modules. A call
 * does not cross to the host: its arguments are read into JSON text at once (the program may
 * change them afterwards), queued with the call's id and op, and the program gets a promise; the
 * host takes the queue after each entry into the VM (one crossing for every call made meanwhile)
 * and later ends each call with `settle`: the answer's JSON is parsed or the error made inside the
 * VM, in one host call. Only a call past the run's call limit reaches the host at once
 * (`callLimit`), so that a program queuing calls without end is stopped there.
 */
export function makeBridge(hostGlobal: string, serialize: Serialize): BridgeFunctions {
  const { getOwnPropertyDescriptor, getPrototypeOf, defineProperty } = Object;
  const Error_ = Error;
  const Promise_ = Promise;
  const parseJson = JSON.parse;
  const stringify = JSON.stringify;
  const apply = Reflect.apply;
  const join = Array.prototype.join;
  const host = (globalThis as unknown as Record<string, HostObject>)[hostGlobal] as HostObject;
  const callLimit = host.callLimit;
  const makeError = (name: string, message: string, errorClass?: string): Error => {
    const error = new Error_(message);
    defineProperty(error, "name", { value: name, writable: true, enumerable: false, configurable: true });
    if (errorClass !== undefined)
      defineProperty(error, "class", { value: errorClass, writable: true, enumerable: true, configurable: true });
    return error;
  };
  const pending: ([(value: unknown) => void, (error: Error) => void] | undefined)[] = [];
  // one line per call: id, op (JSON) and arguments (serialize's answer), tab-separated (JSON text holds no raw tab or
  // newline)
  let queue: string[] = [];
  let next = 0;
  let max = 0;
  host.call = (op, args) => {
    const text = serialize(args, true);
    const id = next++;
    if (id >= max) callLimit();
    queue[queue.length] = id + "\t" + stringify(op) + "\t" + text + "\n";
    return new Promise_((resolve, reject) => {
      pending[id] = [resolve, reject];
    });
  };
  return {
    getOwnPropertyDescriptor,
    getPrototypeOf,
    serialize,
    parseJson,
    makeError,
    take: () => {
      const lines = apply(join, queue, [""]) as string;
      queue = [];
      return lines;
    },
    limit: (calls) => {
      max = calls;
    },
    settle: (id, ok, text, name, errorClass) => {
      const settlers = pending[id] as [(value: unknown) => void, (error: Error) => void];
      pending[id] = undefined;
      if (ok) settlers[0](parseJson(text));
      else settlers[1](makeError(name as string, text, errorClass));
    },
  };
}

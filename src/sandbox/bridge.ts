import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { CountersignError, type ErrorClass } from "../model/errors.js";
import type { Json } from "../model/json.js";
import { SERIALIZER } from "./marshal.js";

/**
 * Intrinsics the host uses to look at and build program values, taken before the lockdown (which
 * deletes most of them from the program's reach) and before any program code runs.
 */
export interface Bridge {
  vm: QuickJSContext;
  getOwnPropertyDescriptor: QuickJSHandle;
  getPrototypeOf: QuickJSHandle;
  serialize: QuickJSHandle; // program value -> JSON text, see marshal.ts
  parseJson: QuickJSHandle;
  makeError: QuickJSHandle;
}

const KEYS = ["getOwnPropertyDescriptor", "getPrototypeOf", "serialize", "parseJson", "makeError"] as const;

const SETUP = `(() => {
  const { getOwnPropertyDescriptor, getPrototypeOf, defineProperty } = Object;
  const Error_ = Error;
  return {
    getOwnPropertyDescriptor,
    getPrototypeOf,
    serialize: ${SERIALIZER},
    parseJson: JSON.parse,
    makeError: (name, message, errorClass) => {
      const error = new Error_(message);
      defineProperty(error, "name", { value: name, writable: true, enumerable: false, configurable: true });
      if (errorClass !== undefined) defineProperty(error, "class", { value: errorClass, writable: true, enumerable: true, configurable: true });
      return error;
    },
  };
})()`;

export function createBridge(vm: QuickJSContext): Bridge {
  const result = vm.evalCode(SETUP, "countersign:bridge");
  if (result.error !== undefined) {
    result.error.dispose();
    throw new CountersignError("internal_error", "sandbox", "the sandbox bridge failed to start");
  }
  const bag = result.value;
  const bridge = { vm } as Bridge;
  for (const key of KEYS) bridge[key] = vm.getProp(bag, key);
  bag.dispose();
  return bridge;
}

export function disposeBridge(bridge: Bridge): void {
  for (const key of KEYS) if (bridge[key].alive) bridge[key].dispose();
}

/** A fresh value inside the VM from host data: JSON parsed there, so nothing is shared with the host or between calls. */
export function toVm(bridge: Bridge, value: Json): QuickJSHandle {
  return callWith(bridge, bridge.parseJson, [JSON.stringify(value)]);
}

/** An Error inside the VM with the given name and message, and the countersign error class when there is one. */
export function vmError(bridge: Bridge, name: string, message: string, errorClass?: ErrorClass): QuickJSHandle {
  return callWith(bridge, bridge.makeError, errorClass === undefined ? [name, message] : [name, message, errorClass]);
}

/** Call a bridge function with string arguments; it is ours, so a throw is an engine failure (e.g. out of memory). */
function callWith(bridge: Bridge, fn: QuickJSHandle, strings: string[]): QuickJSHandle {
  const { vm } = bridge;
  const args = strings.map((s) => vm.newString(s));
  try {
    return vm.unwrapResult(vm.callFunction(fn, vm.undefined, ...args));
  } finally {
    for (const arg of args) arg.dispose();
  }
}

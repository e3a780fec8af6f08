import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { CountersignError, type ErrorClass } from "../model/index.js";
import type { Json } from "../model/index.js";
import { HOST_GLOBAL } from "./host-modules.js";
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
  settle: QuickJSHandle; // (id, ok, text, name, class): ends trusted call `id`, see SETUP
}

const KEYS = ["getOwnPropertyDescriptor", "getPrototypeOf", "serialize", "parseJson", "makeError", "settle"] as const;

/**
 * Evaluated once the host's functions are installed. Besides the intrinsics it adds \`call\` to
 * the host object for the trusted modules: it hands the op and arguments to the host's \`invoke\`,
 * which answers with a call id (or throws a refusal), and returns a promise the host later ends
 * with \`settle\`: the answer's JSON is parsed or the error made inside the VM, in one host call.
 */
const SETUP = `(() => {
  const { getOwnPropertyDescriptor, getPrototypeOf, defineProperty } = Object;
  const Error_ = Error;
  const Promise_ = Promise;
  const parseJson = JSON.parse;
  const host = ${HOST_GLOBAL};
  const invoke = host.invoke;
  const makeError = (name, message, errorClass) => {
    const error = new Error_(message);
    defineProperty(error, "name", { value: name, writable: true, enumerable: false, configurable: true });
    if (errorClass !== undefined) defineProperty(error, "class", { value: errorClass, writable: true, enumerable: true, configurable: true });
    return error;
  };
  const pending = [];
  host.call = (op, args) => {
    let id;
    try {
      id = invoke(op, args);
    } catch (refusal) {
      return new Promise_((resolve, reject) => reject(refusal));
    }
    return new Promise_((resolve, reject) => {
      pending[id] = [resolve, reject];
    });
  };
  return {
    getOwnPropertyDescriptor,
    getPrototypeOf,
    serialize: ${SERIALIZER},
    parseJson,
    makeError,
    settle: (id, ok, text, name, errorClass) => {
      const settlers = pending[id];
      pending[id] = undefined;
      if (ok) settlers[0](parseJson(text));
      else settlers[1](makeError(name, text, errorClass));
    },
  };
})()`;

/** The bridge of a context whose host functions are installed (see installHost). */
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

/** A fresh value inside the VM from host data: JSON parsed there, so nothing is shared with the host or between calls. */
export function toVm(bridge: Bridge, value: Json): QuickJSHandle {
  return callWith(bridge, bridge.parseJson, [JSON.stringify(value)]);
}

/** End trusted call `id` inside the VM: resolve it with `json` parsed there, or reject it with an error made there. */
export function settleCall(bridge: Bridge, id: number, outcome: { json: string } | { name: string; message: string; errorClass: ErrorClass }): void {
  const { vm } = bridge;
  const strings = "json" in outcome ? [outcome.json] : [outcome.message, outcome.name, outcome.errorClass];
  const handles = strings.map((s) => vm.newString(s));
  const idHandle = vm.newNumber(id);
  try {
    vm.unwrapResult(vm.callFunction(bridge.settle, vm.undefined, idHandle, "json" in outcome ? vm.true : vm.false, ...handles)).dispose();
  } finally {
    idHandle.dispose();
    for (const handle of handles) handle.dispose();
  }
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

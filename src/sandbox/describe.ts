import type { QuickJSHandle } from "quickjs-emscripten-core";
import { ErrorClass } from "../model/index.js";
import type { Bridge } from "./bridge.js";
import { NotPlainData, toJson } from "./marshal.js";

/** What a program threw, read without running its code. */
export interface Thrown {
  name: string;
  message: string;
  class?: ErrorClass; // a countersign error from a trusted call, let through
  stack?: string;
}

const MAX_MESSAGE = 4096;
const PROTO_HOPS = 8;

/**
 * Describe a thrown value. For an object only data properties are read: its own `message`,
 * `class` and `stack`, and the first `name` up its prototype chain. A primitive is shown as it is.
 */
export function describeThrown(bridge: Bridge, handle: QuickJSHandle): Thrown {
  const { vm } = bridge;
  const type = vm.typeof(handle);
  if (type !== "object" || vm.sameValue(handle, vm.null))
    return { name: type === "object" ? "null" : type, message: primitiveText(bridge, handle) };
  const thrown: Thrown = {
    name: inheritedString(bridge, handle, "name") ?? "Object",
    message: ownString(bridge, handle, "message") ?? "",
  };
  const errorClass = ErrorClass.safeParse(ownString(bridge, handle, "class"));
  if (errorClass.success) thrown.class = errorClass.data;
  const stack = ownString(bridge, handle, "stack");
  if (stack !== undefined && stack !== "") thrown.stack = stack;
  return thrown;
}

/**
 * One console argument as text: strings as they are, plain data as JSON, errors as `name: message`, anything else by
 * its kind.
 */
export function logText(bridge: Bridge, handle: QuickJSHandle): string {
  const { vm } = bridge;
  const type = vm.typeof(handle);
  if (type === "string") return vm.getString(handle);
  if (type !== "object" || vm.sameValue(handle, vm.null)) return primitiveText(bridge, handle);
  try {
    return JSON.stringify(toJson(bridge, handle));
  } catch (err) {
    if (!(err instanceof NotPlainData)) throw err;
  }
  const message = ownString(bridge, handle, "message");
  if (message !== undefined) return `${inheritedString(bridge, handle, "name") ?? "Error"}: ${message}`;
  return "[object]";
}

function primitiveText(bridge: Bridge, handle: QuickJSHandle): string {
  const { vm } = bridge;
  switch (vm.typeof(handle)) {
    case "string":
      return clip(vm.getString(handle));
    case "number":
      return String(vm.getNumber(handle));
    case "boolean":
      return String(vm.sameValue(handle, vm.true));
    case "object":
      return "null";
    case "undefined":
      return "undefined";
    default:
      return `[${vm.typeof(handle)}]`; // function, symbol, bigint: never converted inside the VM
  }
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

/** An own data property holding a string; accessors are never called. */
function ownString(bridge: Bridge, handle: QuickJSHandle, key: string): string | undefined {
  const { vm } = bridge;
  const keyHandle = vm.newString(key);
  const descriptor = vm.unwrapResult(vm.callFunction(bridge.getOwnPropertyDescriptor, vm.undefined, handle, keyHandle));
  keyHandle.dispose();
  try {
    if (vm.typeof(descriptor) === "undefined") return undefined;
    const value = vm.getProp(descriptor, "value"); // absent on an accessor: undefined
    try {
      return vm.typeof(value) === "string" ? clip(vm.getString(value)) : undefined;
    } finally {
      value.dispose();
    }
  } finally {
    descriptor.dispose();
  }
}

/** The first data property `key` on the object or its prototypes (a few hops at most). */
function inheritedString(bridge: Bridge, handle: QuickJSHandle, key: string): string | undefined {
  const { vm } = bridge;
  let current: QuickJSHandle = handle.dup();
  try {
    for (let hop = 0; hop < PROTO_HOPS; hop++) {
      const found = ownString(bridge, current, key);
      if (found !== undefined) return found;
      const next: QuickJSHandle = vm.unwrapResult(vm.callFunction(bridge.getPrototypeOf, vm.undefined, current));
      current.dispose();
      current = next;
      if (vm.typeof(current) !== "object" || vm.sameValue(current, vm.null)) return undefined;
    }
    return undefined;
  } finally {
    current.dispose();
  }
}

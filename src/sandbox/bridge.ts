import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { callText, CountersignError, type ErrorClass } from "../model/index.js";
import type { Json } from "../model/index.js";
import { HOST_GLOBAL } from "./host-modules.js";
import { MAX_DEPTH, MAX_NODES, MAX_TEXT } from "./marshal.js";
import { makeBridge } from "./realm-bridge.js";
import { makeSerializer } from "./realm-serializer.js";

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
  take: QuickJSHandle; // () -> the trusted calls made since the last take, see realm-bridge.ts
  limit: QuickJSHandle; // (max): how many trusted calls the program may make before the host is told at once
  settle: QuickJSHandle; // (id, ok, text, name, class): ends trusted call `id`, see realm-bridge.ts
}

const KEYS = [
  "getOwnPropertyDescriptor",
  "getPrototypeOf",
  "serialize",
  "parseJson",
  "makeError",
  "take",
  "limit",
  "settle",
] as const;

// The bridge and its serializer, made inside the VM from their typed sources (realm-bridge.ts, realm-serializer.ts).
const SETUP = callText(
  makeBridge,
  JSON.stringify(HOST_GLOBAL),
  callText(makeSerializer, JSON.stringify({ maxDepth: MAX_DEPTH, maxNodes: MAX_NODES, maxText: MAX_TEXT })),
);

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

/** A trusted call the program made: its id, its op and its arguments as the serializer read them (see marshal.ts). */
export interface QueuedCall {
  id: number;
  op: string;
  args: string;
}

/**
 * The trusted calls the program made since the last take, in order; one crossing into the VM however many there are.
 */
export function takeCalls(bridge: Bridge): QueuedCall[] {
  const { vm } = bridge;
  const handle = vm.unwrapResult(vm.callFunction(bridge.take, vm.undefined));
  const text = vm.getString(handle);
  handle.dispose();
  if (text === "") return [];
  const calls: QueuedCall[] = [];
  for (const line of text.slice(0, -1).split("\n")) {
    const first = line.indexOf("\t");
    const second = line.indexOf("\t", first + 1);
    calls.push({
      id: Number(line.slice(0, first)),
      op: JSON.parse(line.slice(first + 1, second)) as string,
      args: line.slice(second + 1),
    });
  }
  return calls;
}

/** Tell the VM how many trusted calls the run allows: the one past them reaches the host at once. */
export function limitCalls(bridge: Bridge, max: number): void {
  const { vm } = bridge;
  const handle = vm.newNumber(max);
  try {
    vm.unwrapResult(vm.callFunction(bridge.limit, vm.undefined, handle)).dispose();
  } finally {
    handle.dispose();
  }
}

/**
 * A fresh value inside the VM from host data: JSON parsed there, so nothing is shared with the host or between calls.
 */
export function toVm(bridge: Bridge, value: Json): QuickJSHandle {
  return callWith(bridge, bridge.parseJson, [JSON.stringify(value)]);
}

/** End trusted call `id` inside the VM: resolve it with `json` parsed there, or reject it with an error made there. */
export function settleCall(
  bridge: Bridge,
  id: number,
  outcome: { json: string } | { name: string; message: string; errorClass: ErrorClass },
): void {
  const { vm } = bridge;
  const strings = "json" in outcome ? [outcome.json] : [outcome.message, outcome.name, outcome.errorClass];
  const handles = strings.map((s) => vm.newString(s));
  const idHandle = vm.newNumber(id);
  try {
    vm.unwrapResult(
      vm.callFunction(bridge.settle, vm.undefined, idHandle, "json" in outcome ? vm.true : vm.false, ...handles),
    ).dispose();
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

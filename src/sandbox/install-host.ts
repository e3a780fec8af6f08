import type { QuickJSContext, QuickJSHandle, VmCallResult } from "quickjs-emscripten-core";
import type { ContractHelper } from "../model/index.js";
import type { Json } from "../model/index.js";
import { toVm, vmError } from "./bridge.js";
import { logText } from "./describe.js";
import { HOST_GLOBAL } from "./host-modules.js";
import { toJson } from "./marshal.js";
import { limitExceeded, stop, type LogLine, type RunState } from "./run-state.js";
import { callLimit } from "./trusted-call.js";

type HostFunction = (...args: QuickJSHandle[]) => QuickJSHandle | VmCallResult<QuickJSHandle> | void;

/**
 * The host's functions inside a fresh context, before the bridge and the lockdown: `console` (a
 * listed global) and the temporary global the bridge and the generated modules read once (the
 * lockdown deletes it). They reach the run's state only when called.
 */
export function installHost(vm: QuickJSContext, state: RunState): void {
  defineObject(vm, "console", {
    log: (...args) => log(state, "log", args),
    error: (...args) => log(state, "error", args),
  });
  defineObject(vm, HOST_GLOBAL, {
    callLimit: () => callLimit(state),
    contract: (connector, name, args) => buildContract(state, connector!, name!, args!),
    register: (runner) => {
      state.runner ??= runner!.dup();
    },
  });
}

function defineObject(vm: QuickJSContext, name: string, functions: Record<string, HostFunction>): void {
  const object = vm.newObject();
  for (const [key, fn] of Object.entries(functions)) {
    const handle = vm.newFunction(key, fn);
    vm.setProp(object, key, handle);
    handle.dispose();
  }
  vm.setProp(vm.global, name, object);
  object.dispose();
}

/** console.log and console.error: captured, up to the output limit; past it the run stops. */
function log(state: RunState, stream: LogLine["stream"], args: QuickJSHandle[]): void {
  if (state.stopped !== undefined) return;
  const text = args.map((arg) => logText(state.bridge, arg)).join(" ");
  const bytes = Buffer.byteLength(text, "utf8") + 1;
  if (state.logBytes + bytes > state.limits.outputBytes) {
    stop(
      state,
      limitExceeded("output", `the program's console output passed ${state.limits.outputBytes} bytes`, {
        output_bytes: state.limits.outputBytes,
      }),
    );
    return;
  }
  state.logBytes += bytes;
  state.send({ type: "log", stream, text });
}

// What a helper's declared parameter types accept (the API declares these); anything else is refused.
const PARAM_TYPES: Record<string, (value: Json) => boolean> = {
  string: (v) => typeof v === "string",
  number: (v) => typeof v === "number",
  boolean: (v) => typeof v === "boolean",
  "string[]": (v) => Array.isArray(v) && v.every((e) => typeof e === "string"),
};

function fitsParams(helper: ContractHelper, args: Json): args is Json[] {
  return (
    Array.isArray(args) &&
    args.length === helper.params.length &&
    helper.params.every((p, i) => PARAM_TYPES[p.type]?.(args[i]!) === true)
  );
}

/**
 * A contract helper from `trusted/<connector>/contracts`, built on the host from plain-data
 * arguments of the declared types (a string where `string[]` is declared would be spread into
 * one element per character on the host).
 */
function buildContract(
  state: RunState,
  connectorHandle: QuickJSHandle,
  nameHandle: QuickJSHandle,
  argsHandle: QuickJSHandle,
): QuickJSHandle | VmCallResult<QuickJSHandle> {
  const { bridge } = state;
  const { vm } = bridge;
  const connector = vm.getString(connectorHandle);
  const name = vm.getString(nameHandle);
  const helper = state.api.contracts[connector]?.find((h) => h.name === name);
  try {
    const args = toJson(bridge, argsHandle);
    if (helper === undefined) throw new Error(`is not a contract helper of ${connector}`);
    if (!fitsParams(helper, args))
      throw new Error(`expects (${helper.params.map((p) => `${p.name}: ${p.type}`).join(", ")})`);
    return toVm(bridge, helper.build(...(args as never[])) as unknown as Json);
  } catch (err) {
    return { error: vmError(bridge, "TypeError", `${name}: ${(err as Error).message}`) };
  }
}

import type { QuickJSContext, QuickJSRuntime } from "quickjs-emscripten-core";
import { createBridge, limitCalls, type Bridge } from "./bridge.js";
import { RunBudget } from "./budget.js";
import type { SandboxApi } from "./host-modules.js";
import { installHost } from "./install-host.js";
import { STACK_BYTES, type SandboxLimits } from "./limits.js";
import { newQuickJS, type QuickJSInstance } from "./quickjs.js";
import type { RunState } from "./run-state.js";
import { setUpRealm } from "./set-up-realm.js";

/**
 * A program's realm before its run: a fresh QuickJS instance (its own capped memory) with the
 * host's functions, the bridge, the modules the program imports and the lockdown in place, and
 * the state its host functions read. No program code has run in it; one run uses it, then it is
 * disposed. `bindRealm` gives it the run's budget, limits and invoke.
 */
export interface Realm {
  instance: QuickJSInstance;
  runtime: QuickJSRuntime;
  vm: QuickJSContext;
  state: RunState;
  /** What it was built for: a run with other modules or another memory size needs another realm. */
  api: SandboxApi;
  imports: ReadonlySet<string>;
  memoryBytes: number;
}

// Until a run binds it nothing may call out: a realm's invoke refuses and its CPU budget is spent.
const unbound = (): never => {
  throw new Error("the realm is not bound to a run");
};

/** Build the realm of a run of a program importing `imports`; setup failures are internal_error. */
export async function buildRealm(api: SandboxApi, imports: ReadonlySet<string>, limits: SandboxLimits): Promise<Realm> {
  const instance = await newQuickJS(limits.memoryBytes);
  const runtime = instance.module.newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(STACK_BYTES);
  runtime.setModuleLoader((name) => ({
    error: new Error(`module "${name}" is not available: a program imports only countersign and trusted/*`),
  }));
  const vm = runtime.newContext();
  const state: RunState = {
    bridge: undefined as unknown as Bridge, // below, once the host functions it reads exist
    budget: new RunBudget(0, 0),
    limits,
    api,
    send: unbound,
    sent: 0,
    unsent: [],
    logBytes: 0,
    stopped: undefined,
    inflight: new Set(),
    waiting: [],
    sentChars: new Map(),
    inflightChars: 0,
    runner: undefined,
    wake: () => {},
    closed: false,
  };
  const realm: Realm = { instance, runtime, vm, state, api, imports, memoryBytes: limits.memoryBytes };
  try {
    installHost(vm, state);
    state.bridge = createBridge(vm);
    setUpRealm(vm, api, imports);
  } catch (err) {
    disposeRealm(realm);
    throw err;
  }
  return realm;
}

/**
 * Give the realm its run: the run's budget, limits, messages out and wake-up, and the interrupt handler that reads the
 * budget.
 */
export function bindRealm(
  realm: Realm,
  run: Pick<RunState, "budget" | "limits" | "send" | "wake">,
  interrupt: () => boolean,
): RunState {
  Object.assign(realm.state, run);
  limitCalls(realm.state.bridge, run.limits.maxCalls);
  realm.runtime.setInterruptHandler(interrupt);
  return realm.state;
}

/**
 * End the realm: nothing calls into it again, and its memory goes back to be zeroed before another
 * run uses it (quickjs.ts). The engine is dropped whole rather than made to free its objects one
 * by one, which every run would pay for: nothing in a realm runs when it is freed, and the zeroing
 * erases the same pages either way.
 */
export function disposeRealm(realm: Realm): void {
  realm.state.closed = true;
  realm.instance.release();
}

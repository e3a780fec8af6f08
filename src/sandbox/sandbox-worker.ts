import { parentPort } from "node:worker_threads";
import { contractsByConnector } from "../../trusted/contracts/index.js";
import { CountersignError } from "../model/index.js";
import type { SandboxApi } from "./host-modules.js";
import { ProgramRun } from "./program-run.js";
import { buildRealm, disposeRealm, type Realm } from "./realm.js";
import { errorData, specKey, type FromWorker, type RealmSpec, type ToWorker } from "./worker-protocol.js";

/**
 * The sandbox thread: it holds the QuickJS instance of one run at a time, so that the thread that
 * started the run (run-program.ts) stays free whatever the program does, and can terminate this
 * one at the run's deadline (QuickJS checks its interrupt handler only between bytecodes: a
 * native loop over a huge array would hold any thread it runs on). A realm can be built ahead
 * ("prepare") for the next run.
 */
const port = parentPort!;
const send = (message: FromWorker) => port.postMessage(message);

// The APIs by key: the modules built for an API are kept by its identity (host-modules.ts).
const apis = new Map<string, SandboxApi>();

function apiOf(spec: RealmSpec): SandboxApi {
  const key = JSON.stringify(spec.api);
  let api = apis.get(key);
  if (api === undefined) {
    const contracts = Object.fromEntries(spec.api.contracts.map((name) => [name, contractsByConnector[name] ?? []]));
    api = Object.freeze({ actions: spec.api.actions, contracts: Object.freeze(contracts) });
    if (apis.size >= 8) apis.delete(apis.keys().next().value!);
    apis.set(key, api);
  }
  return api;
}

let prepared: { key: string; realm: Promise<Realm> } | undefined;
let current: ProgramRun | undefined;

function build(spec: RealmSpec): Promise<Realm> {
  return buildRealm(apiOf(spec), new Set(spec.imports), spec.limits);
}

/** The realm prepared for this run when it fits (it is taken, never shared), else a new one. */
async function realmFor(spec: RealmSpec): Promise<{ realm: Realm; prepared: boolean }> {
  const ahead = prepared;
  prepared = undefined;
  const realm = await ahead?.realm.catch(() => undefined);
  if (realm !== undefined) {
    if (ahead!.key === specKey(spec)) return { realm, prepared: true };
    disposeRealm(realm);
  }
  return { realm: await build(spec), prepared: false };
}

async function run(message: Extract<ToWorker, { type: "run" }>): Promise<void> {
  let realm: { realm: Realm; prepared: boolean };
  try {
    realm = await realmFor(message.spec);
  } catch (err) {
    const error =
      err instanceof CountersignError
        ? err
        : new CountersignError("internal_error", "sandbox", `the sandbox failed to start: ${(err as Error).message}`);
    send({ type: "failed", error: errorData(error) });
    return;
  }
  const { code, entry, wallDeadline, spec } = message;
  current = new ProgramRun(realm.realm, {
    code,
    entry,
    limits: spec.limits,
    wallDeadline,
    clock: new Float64Array(message.clock),
    send,
  });
  try {
    send({ type: "done", result: { ...(await current.execute()), prepared: realm.prepared } });
  } catch (err) {
    const error =
      err instanceof CountersignError
        ? err
        : new CountersignError("internal_error", "sandbox", `the run failed: ${(err as Error).message}`);
    send({ type: "failed", error: errorData(error) });
  } finally {
    current = undefined;
  }
}

port.on("message", (message: ToWorker) => {
  switch (message.type) {
    case "prepare": {
      const earlier = prepared;
      prepared = { key: specKey(message.spec), realm: build(message.spec) };
      prepared.realm.catch(() => undefined); // built again, and reported, by the run
      earlier?.realm.then(disposeRealm, () => undefined);
      return;
    }
    case "run":
      void run(message);
      return;
    case "settle":
      current?.answer(message.id, "json" in message ? { json: message.json } : { error: message.error });
      return;
  }
});
send({ type: "ready" });

import { contractsByConnector } from "../../trusted/contracts/index.js";
import { CountersignError, type ErrorClass } from "../model/index.js";
import type { Json } from "../model/index.js";
import type { Thrown } from "./describe.js";
import type { SandboxApi } from "./host-modules.js";
import type { SandboxLimits } from "./limits.js";

/**
 * The messages between a run's thread (run-program.ts) and the sandbox thread that holds its
 * QuickJS instance (sandbox-worker.ts). Only data crosses: the program's trusted calls go out as
 * the serializer's text and are parsed, admitted and made on the run's thread; their answers come
 * back as JSON text.
 */

/**
 * A SandboxApi as data: the contract helpers are functions, so they are named by connector and taken again from
 * trusted/contracts.
 */
export interface ApiData {
  actions: SandboxApi["actions"];
  contracts: string[];
}

/** What the program's realm is built for: a realm (or a thread) made for one key serves runs of that key. */
export interface RealmSpec {
  api: ApiData;
  imports: string[];
  limits: SandboxLimits;
}

export type ToWorker =
  | { type: "prepare"; spec: RealmSpec }
  | { type: "run"; spec: RealmSpec; code: string; entry: string; wallDeadline: number; clock: SharedArrayBuffer }
  | { type: "settle"; id: number; json: string }
  | { type: "settle"; id: number; error: { name: string; message: string; class: ErrorClass } };

export interface ErrorData {
  class: ErrorClass;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * Why what main returned is not given back (its value is then null): past the valueBytes limit
 * (`bytes` its size), or not plain data (`path` and `why` say where and what). The run's outcome
 * stays what it was: its effects happened.
 */
export type ValueDropped =
  | { reason: "too_large"; bytes: number; limit: number }
  | { reason: "not_plain_data"; path: string; why: string };

/** How the run ended inside the sandbox thread. */
export interface WorkerOutcome {
  outcome: "returned" | "threw" | "limit";
  value: Json;
  valueDropped?: ValueDropped;
  thrown?: Thrown;
  limit?: ErrorData;
  cpuMs: number;
  unsent: string[]; // ops of the calls the program made after the run stopped: none went out
  prepared: boolean; // the realm was the one prepareRun made ahead
}

export type FromWorker =
  | { type: "ready" }
  | { type: "call"; id: number; op: string; args: string }
  | { type: "log"; stream: "log" | "error"; text: string }
  | { type: "done"; result: WorkerOutcome }
  | { type: "failed"; error: ErrorData }; // the realm could not be built: ours, never the program's

export function apiData(api: SandboxApi): ApiData {
  const contracts = Object.keys(api.contracts);
  for (const name of contracts) {
    if (api.contracts[name] !== contractsByConnector[name])
      throw new CountersignError(
        "internal_error",
        "sandbox",
        `the contract helpers of ${name} are not trusted/contracts' own`,
      );
  }
  return { actions: api.actions, contracts };
}

export function errorData(err: CountersignError): ErrorData {
  return { class: err.class, message: err.message, ...(err.details === undefined ? {} : { details: err.details }) };
}

export function fromErrorData(data: ErrorData): CountersignError {
  return new CountersignError(
    data.class,
    "sandbox",
    data.message,
    data.details === undefined ? {} : { details: data.details },
  );
}

/** One string naming what a realm is built for. */
export function specKey(spec: RealmSpec): string {
  return JSON.stringify([spec.api, [...spec.imports].sort(), spec.limits.memoryBytes]);
}

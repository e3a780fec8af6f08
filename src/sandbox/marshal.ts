import type { QuickJSHandle } from "quickjs-emscripten-core";
import { MARSHAL_LIMITS, type Json } from "../model/index.js";
import type { Bridge } from "./bridge.js";

/** A program value that is not plain data, with the path to the offending part. */
export class NotPlainData extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path === "" ? "the value" : path} ${reason}`);
  }
}

// The bounds the connector's marshal applies too (one source of truth): what passes here passes there.
export const MAX_DEPTH = MARSHAL_LIMITS.maxDepth;
export const MAX_NODES = MARSHAL_LIMITS.maxNodes;
export const MAX_TEXT = MARSHAL_LIMITS.maxChars; // characters across all strings and keys

/**
 * What a value is read for. "data" (a log line, main's result, a contract helper's arguments):
 * as JSON.stringify would, a hole or undefined list element is null and a hidden property is left
 * out. "call" (a trusted call's arguments): as the trusted wrapper reads them, those are refused,
 * as is a list with properties other than its elements, so that what crosses is what the program
 * holds and what the analysis described.
 */
export type Reading = "data" | "call";

/**
 * A program value as JSON, by the serializer inside the VM (see realm-serializer.ts); NotPlainData when it is refused.
 */
export function toJson(bridge: Bridge, handle: QuickJSHandle, reading: Reading = "data"): Json {
  const { vm } = bridge;
  const result = vm.unwrapResult(
    vm.callFunction(bridge.serialize, vm.undefined, handle, reading === "call" ? vm.true : vm.false),
  );
  const answer = vm.getString(result);
  result.dispose();
  return fromSerialized(answer);
}

/** The serializer's answer as host data; NotPlainData when it refused the value. */
export function fromSerialized(answer: string): Json {
  if (answer.startsWith("J")) return JSON.parse(answer.slice(1)) as Json;
  const [path, reason] = JSON.parse(answer.slice(1)) as [string, string];
  throw new NotPlainData(path, reason);
}

// @ts-nocheck: AssemblyScript, compiled by asc, not by tsc
// A plugin that remembers: a global counter and a linear-memory buffer that grow with each call.
// Whatever it answers beyond 1 comes from an earlier call on the same instance.
import { setOutput } from "../../../trusted/connectors/shared/kernel";

let calls = 0;
let kept: ArrayBuffer[] = [];
export function count(): i32 {
  calls++;
  kept.push(new ArrayBuffer(1024));
  setOutput('{"calls":' + calls.toString() + ',"kept":' + kept.length.toString() + "}");
  return 0;
}

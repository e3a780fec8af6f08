// @ts-nocheck: AssemblyScript, compiled by asc, not by tsc
// A connector that keeps an object from its module's start: run() resets the heap each call, so
// a call could overwrite it. run() must refuse to run it at all.
import { J } from "../../../trusted/connectors/shared/json";
import { run } from "../../../trusted/connectors/shared/plugin";

const kept = J.obj().set("kept", J.str("since start"));

function echo(args: J): J {
  return kept;
}

export function echo_kept(): i32 { return run(echo); }

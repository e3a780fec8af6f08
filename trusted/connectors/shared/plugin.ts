// The calling convention every connector export follows: JSON object in, JSON out, and on failure
// an error JSON `{ class, message, status? }` through error_set with a non-zero return code.
// The host trusts only two classes from a plugin (external_api_error, connector_error); errors of
// its own host functions it already knows.
import { readInput, setError, setOutput } from "./kernel";
import { J, Kind, parse } from "./json";

let failure: J | null = null;

/** Record the call's error; the returned value is ignored by run(). */
export function fail(cls: string, message: string, status: i32 = 0): J {
  const e = J.obj().set("class", J.str(cls)).set("message", J.str(message));
  if (status != 0) e.set("status", J.num(<f64>status));
  failure = e;
  return new J();
}

export function failed(): bool {
  return failure != null;
}

/** Run one operation on the parsed input and hand its result or its error to the host. */
export function run(op: (args: J) => J): i32 {
  failure = null;
  const args = parse(readInput());
  let out = new J();
  if (args == null || args.kind != Kind.Obj) fail("connector_error", "input is not a JSON object");
  else out = op(args);
  const err = failure;
  if (err != null) {
    setError(err.stringify());
    return 1;
  }
  setOutput(out.stringify());
  return 0;
}

/** A required string argument; fails the call when missing. */
export function stringArg(args: J, name: string): string {
  const v = args.getString(name);
  if (v == null) {
    fail("connector_error", "input `" + name + "` must be a string");
    return "";
  }
  return v;
}

// The calling convention every connector export follows: JSON object in, JSON out, and on failure
// an error JSON `{ class, message, status? }` through error_set with a non-zero return code.
// The host trusts only two classes from a plugin (external_api_error, connector_error); errors of
// its own host functions it already knows.
import { readInput, setErrorBytes, setOutputBytes } from "./kernel";
import { J, Kind, parse } from "./json";

let failure: J | null = null;
let startChecked = false;

/**
 * Give the call an empty heap. The build uses AssemblyScript's stub runtime (a bump allocator, no
 * collector), and each call starts it over: allocating is a pointer bump, and nothing a call made
 * reaches the next one. That holds only if nothing lives on the heap between calls: the first
 * call traps if the module's start allocated anything (a top-level object, which a reset would
 * let a call overwrite).
 */
function freshHeap(): void {
  if (!startChecked) {
    const first = __alloc(0);
    __reset();
    if (__alloc(0) != first) unreachable();
    startChecked = true;
  }
  __reset();
}

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
  freshHeap();
  failure = null;
  const args = parse(readInput());
  let out = new J();
  if (args == null || args.kind != Kind.Obj) fail("connector_error", "input is not a JSON object");
  else out = op(args);
  const err = failure;
  if (err != null) {
    const text = err.toBytes();
    setErrorBytes(text.dataStart(), text.length);
    return 1;
  }
  const text = out.toBytes();
  setOutputBytes(text.dataStart(), text.length);
  return 0;
}

/** A required string argument, as the JSON value (to pass on as it came); fails the call when missing. */
export function stringValue(args: J, name: string): J {
  const v = args.get(name);
  if (v == null || v.kind != Kind.Str) {
    fail("connector_error", "input `" + name + "` must be a string");
    return J.str("");
  }
  return v;
}

/** A required string argument; fails the call when missing. */
export function stringArg(args: J, name: string): string {
  return stringValue(args, name).s;
}

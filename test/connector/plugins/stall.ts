// @ts-nocheck: AssemblyScript, compiled by asc, not by tsc
// Plugins that run long after calling a host function, or that are merely slow: the host must
// stop the first kind in its own thread and make again only a call that has changed nothing.
import { J } from "../../../trusted/connectors/shared/json";
import { run, stringArg } from "../../../trusted/connectors/shared/plugin";
import { fsList, fsWrite } from "../../../trusted/connectors/shared/host";

function forever(): void {
  let n: i64 = 0;
  while (true) n++;
}

// Lists `path`, then never returns.
function readThenSpin(args: J): J {
  fsList(J.obj().set("path", J.str(stringArg(args, "path"))));
  forever();
  return new J();
}

function count(path: string): i32 {
  const listing = fsList(J.obj().set("path", J.str(path)));
  const entries = listing != null ? listing.get("entries") : null;
  return entries != null ? entries.items.length : -1;
}

// Writes `<path>/w<number of entries in path>`: a second attempt would write another file.
function writeNext(path: string): void {
  fsWrite(J.obj().set("path", J.str(path + "/w" + count(path).toString())).set("content", J.str("once")));
}

// Writes, then never returns.
function writeThenSpin(args: J): J {
  writeNext(stringArg(args, "path"));
  forever();
  return new J();
}

// Writes, lists (which sees the write), then never returns.
function writeListSpin(args: J): J {
  const path = stringArg(args, "path");
  writeNext(path);
  count(path);
  forever();
  return new J();
}

// Writes, then answers with the number of entries it then lists.
function writeThenList(args: J): J {
  const path = stringArg(args, "path");
  writeNext(path);
  return J.obj().set("entries", J.num(<f64>count(path)));
}

// Lists `path`, then works for `rounds` million steps (far longer than a slice in the host's
// thread, well within a deadline in a worker) and answers with the listing's length.
function slow(args: J): J {
  const listing = fsList(J.obj().set("path", J.str(stringArg(args, "path"))));
  const rounds = args.get("rounds");
  let x: i64 = 1;
  const steps: i64 = <i64>(rounds != null ? rounds.n : 0.0) * 1_000_000;
  for (let i: i64 = 0; i < steps; i++) x = x * 6364136223846793005 + 1442695040888963407;
  const entries = listing != null ? listing.get("entries") : null;
  return J.obj().set("entries", J.num(entries != null ? <f64>entries.items.length : -1)).set("odd", J.bool((x & 1) == 1));
}

// As slow_work, then traps.
function slowThenTrap(args: J): J {
  slow(args);
  unreachable();
  return new J();
}

export function slow_then_trap(): i32 { return run(slowThenTrap); }
export function read_then_spin(): i32 { return run(readThenSpin); }
export function write_then_spin(): i32 { return run(writeThenSpin); }
export function write_list_spin(): i32 { return run(writeListSpin); }
export function write_then_list(): i32 { return run(writeThenList); }
export function slow_work(): i32 { return run(slow); }

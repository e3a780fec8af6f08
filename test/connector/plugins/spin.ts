// @ts-nocheck: AssemblyScript, compiled by asc, not by tsc
// A plugin that never returns (a loop, or recursion): the host must stop it.
import { J } from "../../../trusted/connectors/shared/json";
import { run } from "../../../trusted/connectors/shared/plugin";

export function spin(): i32 {
  let n: i64 = 0;
  while (true) n++;
  return <i32>n;
}

function fib(n: i64): i64 {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

// Fibonacci number `n`, recursively: for n = 90 it runs for years without a loop or a deep
// stack, so that only function entries are metered.
function fibOf(args: J): J {
  const n = args.get("n");
  return J.obj().set("fib", J.num(<f64>fib(n != null ? <i64>n.n : 0)));
}

export function recurse(): i32 { return run(fibOf); }

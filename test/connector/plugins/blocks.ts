// @ts-nocheck: AssemblyScript, compiled by asc, not by tsc
// A plugin that takes 2000 of the host's memory blocks a call and frees none: Extism numbers blocks
// in 16 bits, so the host must start each call with a clean block table.
import { setOutput } from "../../../trusted/connectors/shared/kernel";

@external("extism:host/env", "alloc") declare function alloc(length: i64): i64;

export function blocks(): i32 {
  for (let i = 0; i < 2000; i++) alloc(1);
  setOutput("{}");
  return 0;
}

// @ts-nocheck: AssemblyScript, compiled by asc, not by tsc
// A plugin that allocates until its memory runs out: its declared maximum must stop it.
let kept: ArrayBuffer[] = [];
export function hog(): i32 {
  while (true) kept.push(new ArrayBuffer(1 << 20));
  return kept.length;
}

// @ts-nocheck: AssemblyScript, compiled by asc, not by tsc
// A plugin that never returns: the host must stop it.
export function spin(): i32 {
  let n: i64 = 0;
  while (true) n++;
  return <i32>n;
}

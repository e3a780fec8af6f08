// How a run is reported in words, the same on every surface (the CLI's lines, MCP progress).
// Zod-free: `run` loads it before the app does.

/**
 * The check's counts in words, for every surface that reports a run: "1 effect, 2 guarantees (2 proven, 0 enforced at
 * run time)".
 */
export function checkWords(check: { effects: number; guarantees: number; proven: number; enforced: number }): string {
  const { effects, guarantees, proven, enforced } = check;
  return `${count(effects, "effect")}, ${count(guarantees, "guarantee")} (${proven} proven, ${enforced} enforced at run time)`;
}

/** How many trusted calls a run made: "1 trusted call", "3 trusted calls". */
export function trustedCallsWords(calls: number): string {
  return count(calls, "trusted call");
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

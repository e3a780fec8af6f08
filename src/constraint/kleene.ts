import type { Verdict3 } from "../model/index.js";

/** Kleene's strong three-valued logic: sound for combining verdicts about the same value. */
export function and3(verdicts: readonly Verdict3[]): Verdict3 {
  if (verdicts.includes("no")) return "no";
  return verdicts.every((v) => v === "yes") ? "yes" : "maybe";
}

export function or3(verdicts: readonly Verdict3[]): Verdict3 {
  if (verdicts.includes("yes")) return "yes";
  return verdicts.every((v) => v === "no") ? "no" : "maybe";
}

export function not3(verdict: Verdict3): Verdict3 {
  return verdict === "yes" ? "no" : verdict === "no" ? "yes" : "maybe";
}

/** yes when every check passed, no when none did, maybe in between (an empty list is yes). */
export function tally(results: readonly boolean[]): Verdict3 {
  if (results.every(Boolean)) return "yes";
  return results.some(Boolean) ? "maybe" : "no";
}

import type { Json } from "../../../src/model/json.js";

/**
 * One adversarial program and what a sound analysis must answer for it.
 * - `covered`: if the program is accepted, the facts cover every concrete run and no receipt
 *   built from them admits a call they do not cover (refusing it is also sound);
 * - `accepted`: a legitimate program: it must be accepted, and covered as above (a refusal is an
 *   over-refusal);
 * - `{ refused }`: it must be refused, naming this construct (or diagnostic code);
 * - `budget`: it must be refused with `analysis_budget_exceeded` rather than run for long.
 * `open` records a finding the analyzer (or the grants) still gets wrong: the case runs as an
 * expected failure until a fix lands, and then the fixer removes `open`.
 */
export interface AdversarialCase {
  name: string;
  source: string;
  /** The read texts of each concrete run (a draft, a file, an HTTP body); one run with "" when left out. */
  reads?: string[][];
  expect: "covered" | "accepted" | { refused: string } | "budget";
  open?: Finding;
  /**
   * Calls a run could make if the analysis were wrong about a value: each goes to a fresh receipt
   * and, being outside the facts, must be refused (docs/architecture.md section 8: an analysis mistake
   * becomes a refused call). Outside the facts: no effect of the op has all of its arguments.
   */
  probes?: Probe[];
  /** The decision each named policy must reach ("default policy", "plain policy"), when it matters. */
  decisions?: Record<string, "auto_approved" | "auto_rejected" | "ask">;
  /** A case that takes long: run only when COUNTERSIGN_SLOW=1; the measured time. */
  slow?: string;
}

export interface Probe {
  op: string;
  args: Record<string, Json>;
}

export type FindingClass = "through-end-to-end" | "facts-miss" | "proven-broken" | "crash" | "slow" | "over-refusal";

export interface Finding {
  class: FindingClass;
  /** The mechanism, in a sentence: what the analysis (or the grant) gets wrong. */
  what: string;
}

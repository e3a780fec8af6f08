import type { PolicyDecision } from "../model/index.js";
import type { Facts } from "../model/index.js";
import type { ManifestSet } from "../manifest/index.js";
import { evaluate } from "./evaluate.js";
import type { Policy } from "./schema.js";

/** What the policy says about a program: auto_approved, auto_rejected or ask, with reasons, guards and grants. */
export function decide(facts: Facts, policy: Policy, set: ManifestSet): PolicyDecision {
  return evaluate(facts, policy, set, false).decision;
}

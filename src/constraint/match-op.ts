import { wildcardMatch } from "./wildcard.js";

/**
 * Does an op pattern select `op`? `*` selects every op; otherwise the connector parts must be
 * equal and the action part is a glob (`email.*`, `email.send_*`). Case-sensitive.
 */
export function matchOp(pattern: string, op: string): boolean {
  if (pattern === "*") return true;
  const p = pattern.indexOf(".");
  // Without a wildcard, a pattern selects the op it names and only that one (the common case: checked for every rule
  // and effect).
  if (!pattern.includes("*") && !pattern.includes("?")) return p >= 0 && pattern === op;
  if (p < 0) return false;
  // The connector parts are equal when the op starts with the pattern's, dot included (it holds no other dot).
  if (!op.startsWith(pattern.slice(0, p + 1))) return false;
  const action = pattern.slice(p + 1);
  return action === "*" || wildcardMatch(action, op.slice(p + 1));
}

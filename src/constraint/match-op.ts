import { wildcardMatch } from "./wildcard.js";

/**
 * Does an op pattern select `op`? `*` selects every op; otherwise the connector parts must be
 * equal and the action part is a glob (`email.*`, `email.send_*`). Case-sensitive.
 */
export function matchOp(pattern: string, op: string): boolean {
  if (pattern === "*") return true;
  const p = pattern.indexOf(".");
  const o = op.indexOf(".");
  if (p < 0 || o < 0 || pattern.slice(0, p) !== op.slice(0, o)) return false;
  return wildcardMatch(pattern.slice(p + 1), op.slice(o + 1));
}

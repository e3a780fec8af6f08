import type { Verdict3 } from "../model/constraint.js";
import { foldAscii, globFolds } from "./glob.js";
import { shortestMember } from "./string-shape.js";
import { wildcardMatch } from "./wildcard.js";

/**
 * `glob` over the strings starting with `prefix` and ending with `suffix` (case folded first
 * for an email pattern, which only widens the set of strings reasoned about).
 * yes: some `*` of the pattern splits it into a head matched by the start of the prefix and a
 * tail matched by the end of the suffix, short enough to fit in the shortest member; the `*`
 * takes the unknown rest. no: the pattern's literal start or end contradicts the prefix or suffix,
 * or a pattern without `*` is shorter than every member.
 */
export function holdsGlob(pattern: string, prefix: string, suffix: string): Verdict3 {
  const fold = globFolds(pattern) ? foldAscii : (s: string) => s;
  const [g, p, s] = [fold(pattern), fold(prefix), fold(suffix)];
  const shortest = shortestMember(p, s);
  for (let k = g.indexOf("*"); k >= 0; k = g.indexOf("*", k + 1)) {
    const head = shortestFit(p.length, (i) => wildcardMatch(g.slice(0, k), p.slice(0, i)));
    const tail = shortestFit(s.length, (j) => wildcardMatch(g.slice(k + 1), s.slice(s.length - j)));
    if (head !== null && tail !== null && head + tail <= shortest) return "yes";
  }
  const firstWild = g.search(/[*?]/);
  if (firstWild < 0) return g.length >= shortest && g.startsWith(p) && g.endsWith(s) ? "maybe" : "no";
  const literalHead = g.slice(0, firstWild);
  const literalTail = g.slice(Math.max(g.lastIndexOf("*"), g.lastIndexOf("?")) + 1);
  const headFits = literalHead.startsWith(p) || p.startsWith(literalHead);
  const tailFits = literalTail.endsWith(s) || s.endsWith(literalTail);
  const longEnough = g.includes("*") || g.length >= shortest;
  return headFits && tailFits && longEnough ? "maybe" : "no";
}

function shortestFit(limit: number, fits: (n: number) => boolean): number | null {
  for (let n = 0; n <= limit; n++) if (fits(n)) return n;
  return null;
}

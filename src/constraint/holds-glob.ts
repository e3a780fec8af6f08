import type { Verdict3 } from "../model/index.js";
import { canonicalAddress, canonicalShapes, isAddress } from "./email-address.js";
import { shortestMember } from "./string-shape.js";
import { wildcardMatch } from "./wildcard.js";

/**
 * `glob` over the strings starting with `prefix` and ending with `suffix`. An email pattern is
 * checked against the canonical forms of those strings (canonicalShapes), the verdicts of its
 * shapes combined: the same answer for all of them, or maybe.
 */
export function holdsGlob(pattern: string, prefix: string, suffix: string): Verdict3 {
  if (!isAddress(pattern)) return holdsLiteralGlob(pattern, prefix, suffix);
  const verdicts = canonicalShapes(prefix, suffix).map((s) =>
    holdsLiteralGlob(canonicalAddress(pattern), s.prefix, s.suffix),
  );
  return verdicts.every((v) => v === verdicts[0]) ? verdicts[0]! : "maybe";
}

/**
 * yes: some `*` of the pattern splits it into a head matched by the start of the prefix and a
 * tail matched by the end of the suffix, short enough to fit in the shortest member; the `*`
 * takes the unknown rest. no: the pattern's literal start or end contradicts the prefix or suffix,
 * or a pattern without `*` is shorter than every member.
 */
function holdsLiteralGlob(g: string, p: string, s: string): Verdict3 {
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

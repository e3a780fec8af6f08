/**
 * Whole-string match of `pattern` against `text`: `*` is any run of characters (also none), `?`
 * exactly one UTF-16 code unit, every other character itself. Greedy with one backtrack point,
 * so an adversarial text costs at most O(pattern × text), never exponential time.
 */
export function wildcardMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    const c = pattern[p];
    if (c === "?" || (c !== undefined && c !== "*" && c === text[t])) {
      p++;
      t++;
    } else if (c === "*") {
      star = p++;
      resume = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (pattern[p] === "*") p++;
  return p === pattern.length;
}

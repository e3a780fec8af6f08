/**
 * A partly known string (abstract kind "string") stands for every string that starts with
 * `prefix` and ends with `suffix`. The two may overlap (`ab`…`bc` includes "abc"), so reasoning
 * here never assumes the full prefix and suffix both fit side by side.
 */
export function isShapeMember(text: string, prefix: string, suffix: string): boolean {
  return text.startsWith(prefix) && text.endsWith(suffix);
}

/** The length of the shortest member, in UTF-16 code units. */
export function shortestMember(prefix: string, suffix: string): number {
  for (let length = Math.max(prefix.length, suffix.length); ; length++) {
    const overlap = prefix.length + suffix.length - length;
    if (prefix.slice(prefix.length - overlap) === suffix.slice(0, overlap)) return length;
  }
}

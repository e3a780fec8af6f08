type Names = readonly string[] | ReadonlySet<string> | ReadonlyMap<string, unknown>;

/**
 * Names for a message: up to `max` of them, then how many more; "none" for none. Reads only the
 * names it shows, so that thousands of errors about a long list stay linear.
 */
export function listNames(names: Names, max = 10): string {
  const size = "size" in names ? names.size : names.length;
  if (size === 0) return "none";
  const shown: string[] = [];
  for (const name of names instanceof Map ? names.keys() : (names as Iterable<string>)) {
    if (shown.length === max) break;
    shown.push(name);
  }
  return size > max ? `${shown.join(", ")} and ${size - max} more` : shown.join(", ");
}

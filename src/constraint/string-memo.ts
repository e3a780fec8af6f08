/**
 * `fn` remembered per exact input string, for pure functions of a string that checks repeat
 * (the same path or URL against every rule). Bounded — at most `size` strings of at most
 * `longest` characters, about 2 MB at worst with the defaults: longer strings are never kept,
 * and a full cache starts over (cheaper than tracking age; a policy's own constants come back
 * on their next use). Results are shared between callers, so `fn` must return primitives or
 * frozen objects.
 */
// biome-ignore lint/complexity/noBannedTypes: `{}` is any value but undefined, which marks a miss
export function memoizeString<T extends {} | null>(
  fn: (input: string) => T,
  size = 1024,
  longest = 1024,
): (input: string) => T {
  const cache = new Map<string, T>();
  return (input) => {
    const hit = cache.get(input);
    if (hit !== undefined) return hit;
    const result = fn(input);
    if (input.length <= longest) {
      if (cache.size >= size) cache.clear();
      cache.set(input, result);
    }
    return result;
  };
}

/**
 * `fn` remembered per exact input string, for pure functions of a string that checks repeat
 * (the same path or URL against every rule). Bounded: at most `size` entries, the oldest dropped
 * first, and strings longer than `longest` are never kept. Results are shared between callers,
 * so `fn` must return primitives or frozen objects.
 */
export function memoizeString<T extends {} | null>(fn: (input: string) => T, size = 4096, longest = 2048): (input: string) => T {
  const cache = new Map<string, T>();
  return (input) => {
    const hit = cache.get(input);
    if (hit !== undefined) return hit;
    const result = fn(input);
    if (input.length <= longest) {
      if (cache.size >= size) cache.delete(cache.keys().next().value!);
      cache.set(input, result);
    }
    return result;
  };
}

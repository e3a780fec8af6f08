/**
 * A stream of choices drawn from a list of numbers, the way a generator decides what to write
 * next. Once the list runs out every choice is 0, and 0 always means the simplest option (stop,
 * the first literal), so fast-check shrinks a failing program by shrinking the list.
 */
export class Choices {
  private at = 0;

  constructor(private readonly values: readonly number[]) {}

  /** An integer in [0, n). */
  int(n: number): number {
    const v = this.values[this.at++];
    return v === undefined || n <= 1 ? 0 : v % n;
  }

  /** True with probability about `percent`; false once the stream is exhausted. */
  chance(percent: number): boolean {
    const v = this.values[this.at++];
    return v !== undefined && v % 100 < percent;
  }

  item<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** One of the options whose guard holds, by weight; the first is the simplest. */
  weighted<T>(options: readonly (readonly [number, boolean, () => T])[]): T {
    const open = options.filter(([, ok]) => ok);
    const total = open.reduce((n, [w]) => n + w, 0);
    let r = this.int(total);
    for (const [w, , make] of open) {
      if (r < w) return make();
      r -= w;
    }
    return open[0]![2]();
  }
}

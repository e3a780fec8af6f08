// What the sandbox benchmarks' plain-JavaScript measurement scripts share.

const dist = new URL("../dist/src/", import.meta.url);

/** A module of the built dist/src/, e.g. load("sandbox/index.js"). */
export const load = (path) => import(new URL(path, dist).href);

/** Median of repeated timings in ms; each sample runs `fn` `inner` times. */
export async function measure(fn, { samples = 21, inner = 1 } = {}) {
  const times = [];
  for (let s = 0; s < samples; s++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < inner; i++) await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6 / inner);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

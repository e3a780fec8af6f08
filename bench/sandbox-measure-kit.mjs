// What the sandbox benchmarks' plain-JavaScript measurement scripts share.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dist = new URL("../dist/src/", import.meta.url);

/** A new folder under the system's temp folder, removed when the process exits (process.exit included). */
export function tempDir(prefix) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A module of the built dist/src/, e.g. load("sandbox/index.js"). */
export const load = (path) => import(new URL(path, dist).href);

/** What the fs connector may reach in the measurements: the one folder `files`, and nothing else. */
export function fsCapabilities(files) {
  return {
    connector: "fs",
    hosts: new Set(),
    baseUrl: null,
    credential: null,
    roots: [{ given: files, real: files }],
    secrets: [],
  };
}

/**
 * The host handlers a plugin in the host's thread is given: every one that answers synchronously,
 * as the pool gives them, so that a connector importing a new one still starts here.
 */
export async function syncHostHandlers(handlers) {
  const { SYNC_HOST_FUNCTIONS } = await load("connector/host-functions.js");
  return Object.fromEntries(Object.entries(handlers).filter(([name]) => SYNC_HOST_FUNCTIONS.has(name)));
}

const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Medians of repeated timings in ms, wall clock and CPU (the whole process: its worker threads and
 * the garbage collector included); each sample runs `fn` `inner` times. On a shared machine the
 * CPU time is the steadier figure: wall time also counts the waits for a core.
 */
export async function measure(fn, { samples = 21, inner = 1 } = {}) {
  const wall = [];
  const cpu = [];
  for (let s = 0; s < samples; s++) {
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    for (let i = 0; i < inner; i++) await fn();
    const c = process.cpuUsage(c0);
    wall.push(Number(process.hrtime.bigint() - t0) / 1e6 / inner);
    cpu.push((c.user + c.system) / 1000 / inner);
  }
  return { ms: median(wall), cpuMs: median(cpu) };
}

/** Like measure, one call of `fn` per sample, each after `before` (not timed) has run. */
export async function measureAfter(before, fn, { samples = 21 } = {}) {
  return (await measureInTurns({ only: { before, run: fn } }, { samples })).only;
}

/**
 * measureAfter for several variants ({ name: { before, run } }), taken in turns: a sample of each,
 * then the next of each, so that the shared machine's changing load weighs on each alike.
 */
export async function measureInTurns(variants, { samples = 21 } = {}) {
  const names = Object.keys(variants);
  const wall = Object.fromEntries(names.map((name) => [name, []]));
  const cpu = Object.fromEntries(names.map((name) => [name, []]));
  for (let s = 0; s < samples; s++) {
    for (const name of names) {
      await variants[name].before();
      const t0 = process.hrtime.bigint();
      const c0 = process.cpuUsage();
      await variants[name].run();
      const c = process.cpuUsage(c0);
      wall[name].push(Number(process.hrtime.bigint() - t0) / 1e6);
      cpu[name].push((c.user + c.system) / 1000);
    }
  }
  return Object.fromEntries(names.map((name) => [name, { ms: median(wall[name]), cpuMs: median(cpu[name]) }]));
}

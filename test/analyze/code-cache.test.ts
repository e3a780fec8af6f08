import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCached } from "../../src/analyze/compile/code-cache.js";

let root: string;
let dir: string;
let file: string;

// Big enough that V8 has real code to cache; the value shows which source actually ran.
const source = (answer: number): string =>
  `"use strict";\n${Array.from({ length: 50 }, (_, i) => `function f${i}(x) { return x * ${i} + ${i}; }`).join("\n")}\nmodule.exports = { answer: ${answer}, total: f7(3) + f49(1), dir: __dirname };\n`;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "countersign-code-cache-"));
  dir = join(root, "cache");
  file = join(root, "bundle.js");
  writeFileSync(file, source(1));
});

const cacheFiles = (): string[] => readdirSync(dir).map((name) => join(dir, name));
const load = () => runCached(file, dir);

describe("runCached", () => {
  it("runs the file as CommonJS, then writes a private cache that the next run takes", () => {
    const first = load();
    expect(first.fromCache).toBe(false);
    expect(first.exports).toEqual({ answer: 1, total: 7 * 3 + 7 + 49 + 49, dir: root });
    first.save();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const [cache] = cacheFiles();
    expect(cacheFiles()).toHaveLength(1);
    expect(statSync(cache!).mode & 0o777).toBe(0o600);
    const second = load();
    expect(second.fromCache).toBe(true);
    expect(second.exports).toEqual(first.exports);
  });

  // V8 itself would run a cache made for other source of the same length: the key must differ.
  it("never runs a cache made for other source, even of the same length", () => {
    load().save();
    writeFileSync(file, source(2));
    const changed = load();
    expect(changed.fromCache).toBe(false);
    expect((changed.exports as { answer: number }).answer).toBe(2);
  });

  it("ignores a corrupt cache and writes a good one again", () => {
    load().save();
    const [cache] = cacheFiles();
    const bytes = readFileSync(cache!);
    bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff;
    writeFileSync(cache!, bytes);
    const corrupt = load();
    expect(corrupt.fromCache).toBe(false);
    expect((corrupt.exports as { answer: number }).answer).toBe(1);
    corrupt.save();
    expect(load().fromCache).toBe(true);
  });

  it("ignores an empty or truncated cache", () => {
    load().save();
    const [cache] = cacheFiles();
    writeFileSync(cache!, readFileSync(cache!).subarray(0, 40));
    expect(load().fromCache).toBe(false);
    writeFileSync(cache!, "");
    expect(load().fromCache).toBe(false);
  });

  it.skipIf(process.getuid === undefined)("ignores a cache that others could have written", () => {
    load().save();
    const [cache] = cacheFiles();
    chmodSync(cache!, 0o666);
    expect(load().fromCache).toBe(false);
    chmodSync(cache!, 0o600);
    expect(load().fromCache).toBe(true);
    chmodSync(dir, 0o777);
    expect(load().fromCache).toBe(false);
  });

  it.skipIf(process.getuid === undefined)("does not write into a directory others can write", () => {
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o777);
    load().save();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("makes the cache directory and its parent, but no deeper", () => {
    dir = join(root, "home", "cache");
    load().save();
    expect(cacheFiles()).toHaveLength(1);
    dir = join(root, "a", "b", "cache");
    load().save();
    expect(readdirSync(root).sort()).toEqual(["bundle.js", "home"]);
  });

  it("gives up quietly where the directory cannot be made (a file in the way, /proc)", () => {
    writeFileSync(join(root, "file"), "");
    for (const where of [
      join(root, "file", "cache"),
      ...(process.platform === "linux" ? ["/proc/countersign-nonexistent/cache"] : []),
    ]) {
      const run = runCached(file, where);
      expect(run.fromCache).toBe(false);
      expect(() => run.save()).not.toThrow();
    }
  });

  it("does not follow a symbolic link to a cache file", () => {
    load().save();
    const [cache] = cacheFiles();
    const real = join(root, "elsewhere.v8cache");
    renameSync(cache!, real);
    symlinkSync(real, cache!);
    expect(load().fromCache).toBe(false);
  });
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

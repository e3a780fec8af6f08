import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectorContext } from "../../src/config/index.js";
import type { ConnectorContext } from "../../src/connector/context.js";
import { createPluginPool, type PluginPool } from "../../src/connector/plugin-pool.js";
import { dataDirWith, runAction, shippedManifests, tempDir } from "./fixtures.js";

const set = shippedManifests();
let pool: PluginPool;
let ctx: ConnectorContext;
let root: string; // the configured root
let outside: string; // a sibling directory the connector must never touch

beforeAll(() => {
  pool = createPluginPool();
  root = tempDir("cs-root-");
  outside = tempDir("cs-outside-");
  writeFileSync(join(root, "notes.txt"), "hello\nworld");
  mkdirSync(join(root, "sub"));
  writeFileSync(join(outside, "secret.txt"), "top secret");
  symlinkSync(join(outside, "secret.txt"), join(root, "link-to-secret"));
  symlinkSync(outside, join(root, "link-to-outside"));
  ctx = connectorContext(dataDirWith(`[fs]\nroots = ["${root}"]\n`), {
    plugins: pool,
    limits: { maxResponseBytes: 1024 },
  });
});
afterAll(() => pool.close());

describe("fs connector inside its roots", () => {
  it("reads a file", async () => {
    expect(await runAction(set, "fs.read_file", { path: join(root, "notes.txt") }, ctx)).toEqual({
      path: join(root, "notes.txt"),
      content: "hello\nworld",
    });
  });

  it("lists a directory, sorted, with entry types", async () => {
    expect(await runAction(set, "fs.list_dir", { path: root }, ctx)).toEqual({
      path: root,
      entries: [
        { name: "link-to-outside", type: "symlink" },
        { name: "link-to-secret", type: "symlink" },
        { name: "notes.txt", type: "file" },
        { name: "sub", type: "dir" },
      ],
    });
  });

  it("writes a new file and replaces an existing one, leaving no temp file", async () => {
    const path = join(root, "sub", "out.txt");
    expect(await runAction(set, "fs.write_file", { path, content: "first ✓" }, ctx)).toEqual({
      path,
      bytes: 9,
      made_dirs: [],
    });
    await runAction(set, "fs.write_file", { path, content: "second" }, ctx);
    expect(readFileSync(path, "utf8")).toBe("second");
    expect(readdirSync(join(root, "sub"))).toEqual(["out.txt"]);
  });

  it("replaces a symlink at the target instead of writing through it", async () => {
    const link = join(root, "sub", "swap");
    symlinkSync(join(outside, "secret.txt"), link);
    await runAction(set, "fs.write_file", { path: link, content: "mine" }, ctx);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("top secret");
    expect(readFileSync(link, "utf8")).toBe("mine");
  });
});

describe("fs connector refusals", () => {
  // The `..` and relative cases never reach the host: the wrapper refuses a path outside its
  // lexical normal form (grant_violation, non_canonical) before the connector runs.
  const refusals: [string, string, Record<string, string>, string?][] = [
    ["a path outside the roots", "fs.read_file", { path: "/etc/passwd" }],
    ["a symlinked file that escapes", "fs.read_file", { path: "/LINK/link-to-secret" }],
    ["a symlinked directory that escapes", "fs.list_dir", { path: "/LINK/link-to-outside" }],
    ["a `..` segment", "fs.read_file", { path: "/ROOT/sub/../notes.txt" }, "grant_violation"],
    ["a relative path", "fs.read_file", { path: "notes.txt" }, "grant_violation"],
    ["a write outside the roots", "fs.write_file", { path: "/OUTSIDE/new.txt", content: "x" }],
    ["a write through a symlinked directory", "fs.write_file", { path: "/LINK/link-to-outside/new.txt", content: "x" }],
    ["a write with `..`", "fs.write_file", { path: "/ROOT/../escape.txt", content: "x" }, "grant_violation"],
  ];
  for (const [what, op, raw, refusal = "capability_denied"] of refusals) {
    it(`refuses ${what} with ${refusal}`, async () => {
      const args = Object.fromEntries(
        Object.entries(raw).map(([k, v]) => [
          k,
          v.replace("/LINK", root).replace("/ROOT", root).replace("/OUTSIDE", outside),
        ]),
      );
      await expect(runAction(set, op, args, ctx)).rejects.toMatchObject({ class: refusal, boundary: "connector" });
      expect(readdirSync(outside)).toEqual(["secret.txt"]);
      expect(existsSync(join(root, "..", "escape.txt"))).toBe(false);
    });
  }

  it("refuses a file larger than the limit with resource_limit_exceeded", async () => {
    writeFileSync(join(root, "big.txt"), "x".repeat(2048));
    await expect(runAction(set, "fs.read_file", { path: join(root, "big.txt") }, ctx)).rejects.toMatchObject({
      class: "resource_limit_exceeded",
      details: { limit_bytes: 1024 },
    });
  });

  it("reports a missing file and a directory target as connector_error", async () => {
    await expect(runAction(set, "fs.read_file", { path: join(root, "nope.txt") }, ctx)).rejects.toMatchObject({
      class: "connector_error",
      details: { code: "ENOENT" },
    });
    await expect(runAction(set, "fs.write_file", { path: join(root, "sub"), content: "x" }, ctx)).rejects.toMatchObject(
      {
        class: "connector_error",
        message: `fs: ${join(root, "sub")}: is a directory`,
      },
    );
  });
});

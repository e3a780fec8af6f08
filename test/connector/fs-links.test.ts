// The fs host acts on the path the grant checked: a path in normal form, under a root, through no
// symbolic link below the root, and never inside countersign's own files. Each attack here is a
// link or a spelling that made a checked path land somewhere else.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectorContext } from "../../src/config/index.js";
import type { Capabilities } from "../../src/connector/capabilities.js";
import type { ConnectorContext } from "../../src/connector/context.js";
import { fsList, fsRead, fsWrite, openChecked } from "../../src/connector/host-fs.js";
import { DEFAULT_LIMITS } from "../../src/connector/limits.js";
import { createPluginPool, type PluginPool } from "../../src/connector/plugin-pool.js";
import { dataDirWith, runAction, shippedManifests, tempDir } from "./fixtures.js";

const set = shippedManifests();
let pool: PluginPool;
let ctx: ConnectorContext;
let top: string; // the configured root
let sandbox: string; // the folder a grant's `under` names, inside the root
let documents: string; // elsewhere in the same root: a grant on the sandbox must not reach it
let outside: string; // outside every root
let data: string; // the data directory

beforeAll(() => {
  pool = createPluginPool();
  top = tempDir("cs-top-");
  sandbox = join(top, "Sandbox");
  documents = join(top, "Documents");
  mkdirSync(join(sandbox, "real", "sub"), { recursive: true });
  mkdirSync(documents);
  writeFileSync(join(documents, "private.txt"), "private");
  writeFileSync(join(sandbox, "notes.txt"), "notes");
  outside = tempDir("cs-outside-");
  writeFileSync(join(outside, "secret.txt"), "top secret");
  symlinkSync(documents, join(sandbox, "to-documents")); // a folder link inside the root, to elsewhere in the root
  symlinkSync(join(documents, "private.txt"), join(sandbox, "private-link")); // a file link
  symlinkSync(join(sandbox, "real"), join(sandbox, "alias")); // a link as a parent: Sandbox/alias/sub
  symlinkSync(outside, join(sandbox, "to-outside"));
  data = dataDirWith(`[fs]\nroots = ["${top}"]\n`);
  writeFileSync(join(data, "approver.secret"), "approver-secret-value\n");
  symlinkSync(data, join(sandbox, "to-data"));
  ctx = connectorContext(data, { plugins: pool });
});
afterAll(() => pool.close());

const denial = (reason: string) => ({ class: "capability_denied", boundary: "connector", details: { reason } });
const thrown = (reason: string) =>
  expect.objectContaining({ class: "capability_denied", details: expect.objectContaining({ reason }) });

describe("fs host: no symbolic link below a root", () => {
  it("refuses a write through a folder link inside the root, and nothing lands where it points", async () => {
    const path = join(sandbox, "to-documents", "planted.txt");
    await expect(runAction(set, "fs.write_file", { path, content: "x" }, ctx)).rejects.toMatchObject({
      ...denial("symlink"),
      details: { reason: "symlink", link: join(sandbox, "to-documents") },
    });
    expect(readdirSync(documents)).toEqual(["private.txt"]);
  });

  it("refuses a read and a listing through the same link", async () => {
    await expect(
      runAction(set, "fs.read_file", { path: join(sandbox, "to-documents", "private.txt") }, ctx),
    ).rejects.toMatchObject(denial("symlink"));
    await expect(runAction(set, "fs.list_dir", { path: join(sandbox, "to-documents") }, ctx)).rejects.toMatchObject(
      denial("symlink"),
    );
  });

  it("refuses a read of a file link", async () => {
    await expect(runAction(set, "fs.read_file", { path: join(sandbox, "private-link") }, ctx)).rejects.toMatchObject({
      ...denial("symlink"),
      message: expect.stringContaining(`passes through the symbolic link ${join(sandbox, "private-link")}`),
    });
  });

  it("refuses a symlinked parent directory, even one that stays in the sandbox", async () => {
    const path = join(sandbox, "alias", "sub", "out.txt");
    await expect(runAction(set, "fs.write_file", { path, content: "x" }, ctx)).rejects.toMatchObject({
      details: { reason: "symlink", link: join(sandbox, "alias") },
    });
    expect(readdirSync(join(sandbox, "real", "sub"))).toEqual([]);
    await expect(runAction(set, "fs.list_dir", { path: join(sandbox, "alias", "sub") }, ctx)).rejects.toMatchObject(
      denial("symlink"),
    );
  });

  it("refuses a link out of the roots for reads, listings and writes", async () => {
    await expect(
      runAction(set, "fs.read_file", { path: join(sandbox, "to-outside", "secret.txt") }, ctx),
    ).rejects.toMatchObject(denial("symlink"));
    await expect(
      runAction(set, "fs.write_file", { path: join(sandbox, "to-outside", "new.txt"), content: "x" }, ctx),
    ).rejects.toMatchObject(denial("symlink"));
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });

  it("refuses the data directory reached through a link inside a root", async () => {
    await expect(
      runAction(set, "fs.read_file", { path: join(sandbox, "to-data", "approver.secret") }, ctx),
    ).rejects.toMatchObject(denial("symlink"));
    await expect(
      runAction(set, "fs.read_file", { path: join(sandbox, "to-data", "token") }, ctx),
    ).rejects.toMatchObject(denial("symlink"));
    await expect(runAction(set, "fs.list_dir", { path: join(sandbox, "to-data") }, ctx)).rejects.toMatchObject(
      denial("symlink"),
    );
  });

  it("still reads, lists and writes real files and folders", async () => {
    expect(await runAction(set, "fs.read_file", { path: join(sandbox, "notes.txt") }, ctx)).toMatchObject({
      content: "notes",
    });
    await runAction(set, "fs.write_file", { path: join(sandbox, "real", "sub", "kept.txt"), content: "kept" }, ctx);
    expect(readFileSync(join(sandbox, "real", "sub", "kept.txt"), "utf8")).toBe("kept");
    await runAction(set, "fs.write_file", { path: join(sandbox, "real", "café 😀.txt"), content: "ok" }, ctx); // a surrogate pair is well-formed
    expect(readFileSync(join(sandbox, "real", "café 😀.txt"), "utf8")).toBe("ok");
    expect(await runAction(set, "fs.list_dir", { path: join(sandbox, "real", "sub") }, ctx)).toMatchObject({
      entries: [{ name: "kept.txt", type: "file" }],
    });
    expect(await runAction(set, "fs.list_dir", { path: top }, ctx)).toMatchObject({
      entries: [{ name: "Documents" }, { name: "Sandbox" }],
    });
  });
});

describe("fs host: only paths in normal form", () => {
  // Each would name a file the grant's lexical check did not see as written.
  const forms: [string, string][] = [
    ["a `.` segment", "/SANDBOX/./notes.txt"],
    ["a `..` segment", "/SANDBOX/real/../notes.txt"],
    ["a `..` out of the folder", "/SANDBOX/../Documents/private.txt"],
    ["an empty segment", "/SANDBOX//notes.txt"],
    ["a trailing slash", "/SANDBOX/real/"],
    ["a lone surrogate (the disk would get U+FFFD instead)", "/SANDBOX/keep\uD800.txt"],
  ];
  for (const [what, raw] of forms) {
    it(`refuses ${what} for reads, listings and writes`, async () => {
      const path = raw.replace("/SANDBOX", sandbox);
      const target = path.endsWith("/") ? path : `${path}.new`;
      // The host refuses it whoever asks (a plugin, an agent action's step) ...
      const notNormal = expect.objectContaining({
        class: "capability_denied",
        details: expect.objectContaining({ reason: "not_normal" }),
      });
      const hostCaps: Capabilities = {
        connector: "fs",
        hosts: new Set(),
        baseUrl: null,
        credential: null,
        roots: [{ given: top, real: top }],
        secrets: [],
      };
      expect(() => fsRead(hostCaps, DEFAULT_LIMITS, path)).toThrow(notNormal);
      expect(() => fsList(hostCaps, path)).toThrow(notNormal);
      expect(() => fsWrite(hostCaps, target, "x")).toThrow(notNormal);
      // ... and a program's call never gets that far: the wrapper refuses the non-canonical path first.
      const nonCanonical = { class: "grant_violation", details: { reason: "non_canonical" } };
      await expect(runAction(set, "fs.read_file", { path }, ctx)).rejects.toMatchObject(nonCanonical);
      await expect(runAction(set, "fs.list_dir", { path }, ctx)).rejects.toMatchObject(nonCanonical);
      await expect(runAction(set, "fs.write_file", { path: target, content: "x" }, ctx)).rejects.toMatchObject(
        nonCanonical,
      );
      if (!target.endsWith("/")) expect(existsSync(target)).toBe(false);
    });
  }
});

describe("fs host: a root named through a link", () => {
  it("takes paths under the root as connections.toml names it and under its real path, landing in the real folder", async () => {
    const parent = tempDir("cs-alias-");
    mkdirSync(join(parent, "real-root"));
    symlinkSync(join(parent, "real-root"), join(parent, "named"));
    const aliased = connectorContext(dataDirWith(`[fs]\nroots = ["${join(parent, "named")}"]\n`), { plugins: pool });
    await runAction(set, "fs.write_file", { path: join(parent, "named", "a.txt"), content: "a" }, aliased);
    expect(readFileSync(join(parent, "real-root", "a.txt"), "utf8")).toBe("a");
    expect(await runAction(set, "fs.read_file", { path: join(parent, "real-root", "a.txt") }, aliased)).toMatchObject({
      content: "a",
    });
    await expect(runAction(set, "fs.read_file", { path: join(parent, "a.txt") }, aliased)).rejects.toMatchObject(
      denial("outside_roots"),
    );
  });
});

describe("fs host: a root named through a link below another root", () => {
  it("refuses the path through that link: every root a path is under sees no link on its way", async () => {
    // ~/Sandbox and ~/Sandbox/docs -> ~/Documents as roots: a grant under ~/Sandbox must not write in ~/Documents.
    const nested = connectorContext(dataDirWith(`[fs]\nroots = ["${sandbox}", "${join(sandbox, "to-documents")}"]\n`), {
      plugins: pool,
    });
    const path = join(sandbox, "to-documents", "nested.txt");
    await expect(runAction(set, "fs.write_file", { path, content: "x" }, nested)).rejects.toMatchObject({
      details: { reason: "symlink", link: join(sandbox, "to-documents") },
    });
    await expect(
      runAction(set, "fs.read_file", { path: join(sandbox, "to-documents", "private.txt") }, nested),
    ).rejects.toMatchObject(denial("symlink"));
    expect(readdirSync(documents)).toEqual(["private.txt"]);
    // by its real path the linked root is its own, under no other root
    expect(await runAction(set, "fs.read_file", { path: join(documents, "private.txt") }, nested)).toMatchObject({
      content: "private",
    });
  });
});

describe("fs host: checked at the open itself", () => {
  const caps = (root: string, secrets: string[] = []): Capabilities => ({
    connector: "fs",
    hosts: new Set(),
    baseUrl: null,
    credential: null,
    roots: [{ given: root, real: root }],
    secrets: secrets.map((path) => ({ path, what: "a secret" })),
  });

  it("refuses a file whose directory became a link after the check (the open is verified, not the walk)", () => {
    // What a swap between the check and the open leaves: the walk saw a folder, the open meets a link.
    const real = join(sandbox, "to-outside", "secret.txt");
    const match = { root: { given: top, real: top }, base: top, below: ["Sandbox", "to-outside", "secret.txt"] };
    const at = { ...match, real, matches: [match] };
    expect(() => openChecked(caps(top), real, at, 0)).toThrow(thrown("symlink"));
  });

  it("answers at once for a FIFO where a file was expected, instead of blocking the host's thread", () => {
    const fifo = join(sandbox, "pipe");
    execFileSync("mkfifo", [fifo]);
    expect(() => fsRead(caps(top), DEFAULT_LIMITS, fifo)).toThrow(
      expect.objectContaining({ class: "connector_error", message: expect.stringContaining("not a regular file") }),
    );
  });

  it("refuses whatever lies inside a secret, even under a root", () => {
    const c = caps(top, [documents]);
    expect(() => fsRead(c, DEFAULT_LIMITS, join(documents, "private.txt"))).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ reason: "secret", secret: documents }) }),
    );
    expect(() => fsList(c, documents)).toThrow(thrown("secret"));
    expect(() => fsWrite(c, join(documents, "new.txt"), "x")).toThrow(thrown("secret"));
    expect(existsSync(join(documents, "new.txt"))).toBe(false);
  });
});

// Folders: write_file makes the missing folders of its file, fs.make_dir makes a folder. Each
// folder is made inside a root, through no symbolic link (one there before, or one swapped in
// while the folders are made), never the root itself, never inside countersign's own files, and a
// failure says which folders it had made. Each attack here tries to make something land outside.
import { spawn } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectorContext } from "../../src/config/index.js";
import type { Capabilities } from "../../src/connector/capabilities.js";
import type { ConnectorContext } from "../../src/connector/context.js";
import { fsMakeDir, fsMissingDirs, fsWrite } from "../../src/connector/host-fs.js";
import { createPluginPool, type PluginPool } from "../../src/connector/plugin-pool.js";
import { dataDirWith, runAction, shippedManifests, tempDir } from "./fixtures.js";

const set = shippedManifests();
let pool: PluginPool;
let ctx: ConnectorContext;
let root: string; // the configured root
let outside: string; // outside every root: nothing may ever appear here
let data: string; // the data directory

beforeAll(() => {
  pool = createPluginPool();
  root = tempDir("cs-dirs-root-");
  outside = tempDir("cs-dirs-outside-");
  writeFileSync(join(outside, "secret.txt"), "top secret");
  writeFileSync(join(root, "notes.txt"), "notes");
  mkdirSync(join(root, "real"));
  symlinkSync(outside, join(root, "to-outside"));
  symlinkSync(join(outside, "not-there-yet"), join(root, "dangling")); // a link whose target a mkdir would create
  symlinkSync(join(root, "real"), join(root, "alias")); // a link that stays inside the root
  data = dataDirWith(`[fs]\nroots = ["${root}"]\n`);
  symlinkSync(data, join(root, "to-data"));
  ctx = connectorContext(data, { plugins: pool });
});
afterAll(() => pool.close());

const caps = (r: string, secrets: string[] = []): Capabilities => ({
  connector: "fs",
  hosts: new Set(),
  baseUrl: null,
  credential: null,
  roots: [{ given: r, real: r }],
  secrets: secrets.map((path) => ({ path, what: "a secret" })),
});
const refused = (reason: string) => ({
  class: "capability_denied",
  boundary: "connector",
  details: expect.objectContaining({ reason }),
});
const thrown = (reason: string) => expect.objectContaining({ details: expect.objectContaining({ reason }) });
const untouched = () => expect(readdirSync(outside)).toEqual(["secret.txt"]);
const umasked = (mode: number) => mode & ~process.umask();

describe("write_file makes the missing folders of its file", () => {
  it("makes them, in order, and says which", async () => {
    const path = join(root, "w1", "a", "b", "out.txt");
    expect(await runAction(set, "fs.write_file", { path, content: "deep" }, ctx)).toEqual({
      path,
      bytes: 4,
      made_dirs: [join(root, "w1"), join(root, "w1", "a"), join(root, "w1", "a", "b")],
    });
    expect(readFileSync(path, "utf8")).toBe("deep");
    // a second write finds them: none made
    expect(await runAction(set, "fs.write_file", { path, content: "again" }, ctx)).toEqual({
      path,
      bytes: 5,
      made_dirs: [],
    });
  });

  it("makes only the missing ones below an existing folder", async () => {
    const path = join(root, "real", "new", "f.txt");
    expect(await runAction(set, "fs.write_file", { path, content: "x" }, ctx)).toMatchObject({
      made_dirs: [join(root, "real", "new")],
    });
  });

  it("makes folders as mkdir does: the umask decides their mode", async () => {
    const path = join(root, "w-mode", "f.txt");
    await runAction(set, "fs.write_file", { path, content: "x" }, ctx);
    expect(statSync(join(root, "w-mode")).mode & 0o777).toBe(umasked(0o777));
  });
});

describe("fs.make_dir", () => {
  it("makes a folder and its missing parents; again, it makes nothing and says so", async () => {
    const path = join(root, "m1", "x", "y");
    expect(await runAction(set, "fs.make_dir", { path }, ctx)).toEqual({
      path,
      made: true,
      made_dirs: [join(root, "m1"), join(root, "m1", "x"), path],
    });
    expect(lstatSync(path).isDirectory()).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(umasked(0o777));
    expect(await runAction(set, "fs.make_dir", { path }, ctx)).toEqual({ path, made: false, made_dirs: [] });
  });

  it("takes the root itself as a folder already there", async () => {
    expect(await runAction(set, "fs.make_dir", { path: root }, ctx)).toEqual({
      path: root,
      made: false,
      made_dirs: [],
    });
  });

  it("is listed by the API the agent reads", () => {
    expect(set.actions.get("fs.make_dir")?.manifest.approval?.required).toBe(true);
  });
});

describe("folders never through a symbolic link", () => {
  it("refuses a link out of the root on the way, for a write and a make_dir: nothing appears outside", async () => {
    await expect(
      runAction(set, "fs.write_file", { path: join(root, "to-outside", "new", "f.txt"), content: "x" }, ctx),
    ).rejects.toMatchObject({
      ...refused("symlink"),
      details: expect.objectContaining({ link: join(root, "to-outside") }),
    });
    await expect(runAction(set, "fs.make_dir", { path: join(root, "to-outside", "new") }, ctx)).rejects.toMatchObject(
      refused("symlink"),
    );
    await expect(runAction(set, "fs.make_dir", { path: join(root, "to-outside") }, ctx)).rejects.toMatchObject(
      refused("symlink"),
    );
    untouched();
  });

  it("refuses a dangling link: its target is never made", async () => {
    await expect(runAction(set, "fs.make_dir", { path: join(root, "dangling") }, ctx)).rejects.toMatchObject(
      refused("symlink"),
    );
    await expect(runAction(set, "fs.make_dir", { path: join(root, "dangling", "sub") }, ctx)).rejects.toMatchObject(
      refused("symlink"),
    );
    await expect(
      runAction(set, "fs.write_file", { path: join(root, "dangling", "f.txt"), content: "x" }, ctx),
    ).rejects.toMatchObject(refused("symlink"));
    untouched();
  });

  it("refuses a link that stays inside the root, too: the path checked is the path made", async () => {
    await expect(runAction(set, "fs.make_dir", { path: join(root, "alias", "sub") }, ctx)).rejects.toMatchObject(
      refused("symlink"),
    );
    expect(readdirSync(join(root, "real")).includes("sub")).toBe(false);
  });

  it("refuses the data directory through a link", async () => {
    const before = readdirSync(data).sort();
    await expect(runAction(set, "fs.make_dir", { path: join(root, "to-data", "plugins") }, ctx)).rejects.toMatchObject(
      refused("symlink"),
    );
    await expect(
      runAction(set, "fs.write_file", { path: join(root, "to-data", "policies", "allow.toml"), content: "x" }, ctx),
    ).rejects.toMatchObject(refused("symlink"));
    expect(readdirSync(data).sort()).toEqual(before);
  });

  it("refuses a link planted between the question which folders are missing and the making", () => {
    // What a connector call leaves open: it asks first, the host makes the folders once the call ended.
    const c = caps(root);
    const path = join(root, "planted", "a", "f.txt");
    expect(fsMissingDirs(c, path, "file")).toEqual({ dirs: [join(root, "planted"), join(root, "planted", "a")] });
    symlinkSync(outside, join(root, "planted"));
    expect(() => fsWrite(c, path, "x")).toThrow(thrown("symlink"));
    expect(() => fsMakeDir(c, join(root, "planted", "a"))).toThrow(thrown("symlink"));
    untouched();
  });

  it("holds while another process swaps a folder on the way for a link to outside and back", async () => {
    // The race the checks alone would lose: the host's walk opens each folder without following a
    // link and checks where the opened folder really is; the racer flips as fast as it can.
    const race = join(root, "race");
    const racer = spawn(process.execPath, [
      "-e",
      `const fs = require("node:fs"); const [race, outside] = process.argv.slice(1);
       fs.mkdirSync(race + ".dir"); fs.symlinkSync(outside, race + ".link"); console.log("racing");
       const end = Date.now() + 20000;
       const spin = () => { for (let i = 0; i < 200; i++); };
       while (Date.now() < end) {
         try { fs.renameSync(race + ".dir", race); } catch {}
         spin();
         try { fs.renameSync(race, race + ".dir"); } catch {}
         try { fs.renameSync(race + ".link", race); } catch {}
         spin();
         try { fs.renameSync(race, race + ".link"); } catch {}
       }`,
      race,
      outside,
    ]);
    const c = caps(root);
    const outcomes = new Map<string, number>();
    const count = (what: string) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
    try {
      await new Promise((r) => racer.stdout.once("data", r)); // the racer is running
      const end = Date.now() + 1500;
      for (let i = 0; Date.now() < end; i++) {
        for (const attempt of [
          () => fsMakeDir(c, join(race, "x", `d${i}`)),
          () => fsWrite(c, join(race, `y${i}`, "f.txt"), "RACED"),
        ]) {
          try {
            attempt();
            count("done");
          } catch (err) {
            const e = err as { class?: string; details?: { reason?: string; code?: string } };
            count(`${e.class}:${e.details?.reason ?? e.details?.code ?? "?"}`);
          }
        }
      }
    } finally {
      racer.kill();
    }
    untouched();
    // Every refusal is one a person can read: a link, a folder gone or swapped meanwhile.
    const seen = JSON.stringify([...outcomes]);
    for (const what of outcomes.keys())
      expect(
        [
          "done",
          "capability_denied:symlink",
          "connector_error:ENOENT",
          "connector_error:not_a_folder",
          "connector_error:?",
        ],
        seen,
      ).toContain(what);
    expect(outcomes.get("capability_denied:symlink") ?? 0, seen).toBeGreaterThan(0); // the race was on
  }, 30_000);
});

describe("folders only inside a root, never a secret, never the root itself", () => {
  it("refuses a path outside the roots and makes nothing there", async () => {
    await expect(runAction(set, "fs.make_dir", { path: join(outside, "new") }, ctx)).rejects.toMatchObject(
      refused("outside_roots"),
    );
    await expect(
      runAction(set, "fs.write_file", { path: join(outside, "new", "f.txt"), content: "x" }, ctx),
    ).rejects.toMatchObject(refused("outside_roots"));
    untouched();
  });

  it("refuses folders inside one of countersign's secrets, even under a root", () => {
    const secret = join(root, "secret-dir");
    mkdirSync(secret);
    const c = caps(root, [secret]);
    expect(() => fsMakeDir(c, join(secret, "a", "b"))).toThrow(thrown("secret"));
    expect(() => fsWrite(c, join(secret, "a", "f.txt"), "x")).toThrow(thrown("secret"));
    expect(() => fsMissingDirs(c, join(secret, "a"), "dir")).toThrow(thrown("secret"));
    expect(readdirSync(secret)).toEqual([]);
  });

  it("never makes a root that is gone: it refuses, and the root stays gone", () => {
    const gone = tempDir("cs-dirs-gone-");
    rmSync(gone, { recursive: true });
    const c = caps(gone);
    expect(() => fsMakeDir(c, join(gone, "a"))).toThrow(thrown("root_missing"));
    expect(() => fsMakeDir(c, gone)).toThrow(thrown("root_missing"));
    expect(() => fsWrite(c, join(gone, "a", "f.txt"), "x")).toThrow(thrown("root_missing"));
    expect(() => fsMissingDirs(c, join(gone, "a", "f.txt"), "file")).toThrow(thrown("root_missing"));
    expect(existsSync(gone)).toBe(false);
  });

  it("refuses a root gone between two calls of a run", async () => {
    const parent = tempDir("cs-dirs-later-");
    const later = join(parent, "root");
    mkdirSync(later);
    const laterCtx = connectorContext(dataDirWith(`[fs]\nroots = ["${later}"]\n`), { plugins: pool });
    await runAction(set, "fs.make_dir", { path: join(later, "a") }, laterCtx);
    rmSync(later, { recursive: true });
    await expect(runAction(set, "fs.make_dir", { path: join(later, "a") }, laterCtx)).rejects.toThrow(/does not exist/);
    await expect(
      runAction(set, "fs.write_file", { path: join(later, "a", "f.txt"), content: "x" }, laterCtx),
    ).rejects.toThrow(/does not exist/);
    expect(readdirSync(parent)).toEqual([]);
  });
});

describe("paths in normal form only", () => {
  const forms: [string, string][] = [
    ["a `..` out of the root", "/ROOT/../OUTSIDE/made"],
    ["a `..` inside", "/ROOT/real/../dotdot"],
    ["a `.` segment", "/ROOT/./dot"],
    ["an empty segment", "/ROOT//empty"],
    ["a trailing slash", "/ROOT/trailing/"],
    ["a NUL byte", "/ROOT/nul\u0000/x"],
  ];
  for (const [what, raw] of forms) {
    it(`refuses ${what}, at the wrapper and at the host: nothing made`, async () => {
      const path = raw.replace("/ROOT", root).replace("OUTSIDE", outside.split("/").pop()!);
      const before = readdirSync(root).sort();
      await expect(runAction(set, "fs.make_dir", { path }, ctx)).rejects.toMatchObject({ class: "grant_violation" });
      await expect(runAction(set, "fs.write_file", { path: `${path}/f.txt`, content: "x" }, ctx)).rejects.toMatchObject(
        { class: "grant_violation" },
      );
      expect(() => fsMakeDir(caps(root), path)).toThrow(expect.objectContaining({ class: "capability_denied" }));
      expect(() => fsWrite(caps(root), `${path}/f.txt`, "x")).toThrow(
        expect.objectContaining({ class: "capability_denied" }),
      );
      expect(readdirSync(root).sort()).toEqual(before);
      untouched();
    });
  }
});

describe("a file where a folder is needed", () => {
  it("says which component is a file, before making anything", async () => {
    const path = join(root, "notes.txt", "sub", "f.txt");
    await expect(runAction(set, "fs.write_file", { path, content: "x" }, ctx)).rejects.toMatchObject({
      class: "connector_error",
      message: expect.stringContaining(`${join(root, "notes.txt")} exists and is not a folder`),
      details: expect.objectContaining({ reason: "not_a_folder", at: join(root, "notes.txt") }),
    });
    await expect(runAction(set, "fs.make_dir", { path: join(root, "notes.txt") }, ctx)).rejects.toMatchObject({
      details: expect.objectContaining({ reason: "not_a_folder" }),
    });
    await expect(runAction(set, "fs.make_dir", { path: join(root, "notes.txt", "sub") }, ctx)).rejects.toMatchObject({
      details: expect.objectContaining({ reason: "not_a_folder" }),
    });
    expect(readFileSync(join(root, "notes.txt"), "utf8")).toBe("notes");
  });

  it("refuses a write onto a folder", async () => {
    await expect(runAction(set, "fs.write_file", { path: join(root, "real"), content: "x" }, ctx)).rejects.toThrow(
      /is a directory/,
    );
  });
});

describe("a failure after folders were made", () => {
  it("names the folders made (they stay), and leaves no file nor any part of one", async () => {
    const name = "n".repeat(300); // longer than a file name may be: the write fails once its folder is made
    const path = join(root, "partial", name);
    const error = await runAction(set, "fs.write_file", { path, content: "x" }, ctx).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      class: "connector_error",
      message: expect.stringContaining(`after making ${join(root, "partial")}, which stay`),
      details: expect.objectContaining({ made_dirs: [join(root, "partial")] }),
    });
    expect(readdirSync(join(root, "partial"))).toEqual([]);
  });

  it("at the host: folders made before a failing one are named", () => {
    const path = join(root, "partial2", "n".repeat(300), "f.txt");
    expect(() => fsWrite(caps(root), path, "x")).toThrow(
      expect.objectContaining({
        details: expect.objectContaining({ code: "ENAMETOOLONG", made_dirs: [join(root, "partial2")] }),
      }),
    );
    expect(readdirSync(join(root, "partial2"))).toEqual([]);
  });
});

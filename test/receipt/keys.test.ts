import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { calculateJwkThumbprint } from "jose";
import { describe, expect, it } from "vitest";
import { MAX_LIFETIME_SECONDS } from "../../src/model/receipt.js";
import { writeFileAtomic } from "../../src/store/atomic-write.js";
import { jwks } from "../../src/receipt/jwks.js";
import { jwksPath } from "../../src/store/index.js";
import { keyringPath } from "../../src/store/index.js";
import { openKeyring } from "../../src/store/index.js";
import { rotateKeyring } from "../../src/store/index.js";
import { verifyReceipt } from "../../src/receipt/verify.js";
import { expectRefused, ISSUER, issue, NOW, PROGRAM, tempHome } from "./fixtures.js";

const mode = (path: string) => statSync(path).mode & 0o777;
const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

describe("keyring", () => {
  it("is made on first use: keys/ 0700, keyring 0600, kid the RFC 7638 thumbprint, public JWKS beside it", async () => {
    const home = join(tempHome(), "fresh-home");
    const keyring = await openKeyring(home, NOW);
    expect(mode(join(home, "keys"))).toBe(0o700);
    expect(mode(keyringPath(home))).toBe(0o600);
    const { kty, crv, x } = keyring.active.publicJwk;
    expect(keyring.active.kid).toBe(await calculateJwkThumbprint({ kty, crv, x }, "sha256"));
    expect(keyring.active.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.parse(readFileSync(jwksPath(home), "utf8"))).toEqual({ keys: [keyring.active.publicJwk] });
    expect(readFileSync(jwksPath(home), "utf8")).not.toContain('"d"');
  });

  it("a data directory that cannot be created is a config_error naming it, never a hang", async () => {
    const base = tempHome();
    const deep = join(base, "missing", "deeper", "home");
    await expect(openKeyring(deep)).rejects.toMatchObject({
      class: "config_error",
      details: { dir: join(deep, "keys") },
    });
    await expect(openKeyring("/proc/countersign-no-such-dir")).rejects.toMatchObject({ class: "config_error" });
    expect(readdirSync(base)).toEqual([]); // nothing half-made
  });

  it("is the same key when opened again", async () => {
    const home = tempHome();
    const first = await openKeyring(home, NOW);
    const again = await openKeyring(home, later(10));
    expect(again.active.kid).toBe(first.active.kid);
    expect(again.keys).toHaveLength(1);
  });

  it("refuses to start when the key file is readable by group or others, naming the file", async () => {
    const home = tempHome();
    await openKeyring(home, NOW);
    for (const loose of [0o644, 0o640, 0o604, 0o660]) {
      chmodSync(keyringPath(home), loose);
      const err = await expectRefused(() => openKeyring(home, NOW), "config_error");
      expect(err.message).toContain(keyringPath(home));
      expect(err.details).toEqual({ file: keyringPath(home) });
    }
    chmodSync(keyringPath(home), 0o600);
    await expect(openKeyring(home, NOW)).resolves.toBeDefined();
  });

  it("refuses a corrupted keyring or one whose kid names another key", async () => {
    const home = tempHome();
    await openKeyring(home, NOW);
    const file = keyringPath(home);
    const stored = JSON.parse(readFileSync(file, "utf8"));
    writeFileAtomic(file, JSON.stringify({ ...stored, keys: [{ ...stored.keys[0], kid: "someone-else" }] }), 0o600);
    expect((await expectRefused(() => openKeyring(home, NOW), "config_error")).message).toContain(
      "does not match its private key",
    );
    writeFileAtomic(file, "{ half a ke", 0o600);
    expect((await expectRefused(() => openKeyring(home, NOW), "config_error")).message).toContain(
      "not a valid keyring",
    );
    writeFileAtomic(file, JSON.stringify({ ...stored, keys: [] }), 0o600);
    expect((await expectRefused(() => openKeyring(home, NOW), "config_error")).message).toContain(
      "exactly one active key",
    );
  });

  it("made by two processes at once ends with one key both use", async () => {
    const home = tempHome();
    const [a, b] = await Promise.all([openKeyring(home, NOW), openKeyring(home, NOW)]);
    expect(a.active.kid).toBe(b.active.kid);
  });
});

describe("rotation", () => {
  it("signs new receipts with the new key and keeps the old public key until its receipts have expired", async () => {
    const home = tempHome();
    const before = await openKeyring(home, NOW);
    const oldReceipt = await issue(before, {}, NOW);
    const after = await rotateKeyring(home, NOW);
    expect(after.active.kid).not.toBe(before.active.kid);
    expect(mode(keyringPath(home))).toBe(0o600);

    const retired = after.keys.find((k) => k.kid === before.active.kid)!;
    expect(retired.retired).toEqual(NOW);
    expect(retired.expires).toEqual(later(MAX_LIFETIME_SECONDS));

    const newReceipt = await issue(after, {}, NOW);
    expect(JSON.parse(Buffer.from(newReceipt.split(".")[0]!, "base64url").toString()).kid).toBe(after.active.kid);

    // the old receipt still verifies against the published JWKS
    const published = JSON.parse(readFileSync(jwksPath(home), "utf8"));
    expect(published.keys.map((k: { kid: string }) => k.kid).sort()).toEqual(
      [before.active.kid, after.active.kid].sort(),
    );
    await expect(
      verifyReceipt(oldReceipt, { jwks: published, issuer: ISSUER, programBytes: PROGRAM, now: later(200) }),
    ).resolves.toBeDefined();

    // up to the last second of a 900 s receipt signed just before rotation
    expect(jwks(after, later(MAX_LIFETIME_SECONDS - 1)).keys).toHaveLength(2);
    expect(jwks(after, later(MAX_LIFETIME_SECONDS)).keys.map((k) => k.kid)).toEqual([after.active.kid]);
  });

  it("prunes the retired key from the keyring and the JWKS file once it has expired", async () => {
    const home = tempHome();
    const before = await openKeyring(home, NOW);
    await rotateKeyring(home, NOW);
    expect((await openKeyring(home, later(MAX_LIFETIME_SECONDS - 1))).keys).toHaveLength(2);
    const pruned = await openKeyring(home, later(MAX_LIFETIME_SECONDS));
    expect(pruned.keys.map((k) => k.kid)).not.toContain(before.active.kid);
    expect(readFileSync(keyringPath(home), "utf8")).not.toContain(before.active.kid);
    expect(readFileSync(jwksPath(home), "utf8")).not.toContain(before.active.kid);
  });

  it("twice in a row keeps both retired keys with their own expiry", async () => {
    const home = tempHome();
    await openKeyring(home, NOW);
    await rotateKeyring(home, NOW);
    const twice = await rotateKeyring(home, later(60));
    expect(twice.keys.map((k) => k.expires?.toISOString() ?? null)).toEqual([
      later(900).toISOString(),
      later(960).toISOString(),
      null,
    ]);
  });
});

describe("atomic writes", () => {
  it("leave no temp file and set the mode", () => {
    const dir = tempHome();
    writeFileAtomic(join(dir, "f.json"), "one", 0o600);
    writeFileAtomic(join(dir, "f.json"), "two", 0o600);
    expect(readdirSync(dir)).toEqual(["f.json"]);
    expect(readFileSync(join(dir, "f.json"), "utf8")).toBe("two");
    expect(mode(join(dir, "f.json"))).toBe(0o600);
  });

  it("that fail leave the old file whole and clean up", () => {
    const dir = tempHome();
    mkdirSync(join(dir, "target")); // renaming a file over a directory fails
    writeFileSync(join(dir, "target", "keep"), "x");
    expect(() => writeFileAtomic(join(dir, "target"), "new", 0o600)).toThrow();
    expect(readdirSync(dir)).toEqual(["target"]);
    writeFileAtomic(join(dir, "k.json"), "old", 0o600);
    expect(() => writeFileAtomic(join(dir, "k.json"), "new", 0o600, { exclusive: true })).toThrow(/EEXIST/);
    expect(readFileSync(join(dir, "k.json"), "utf8")).toBe("old");
    expect(readdirSync(dir).sort()).toEqual(["k.json", "target"]);
  });

  it("survive a process killed mid-write: the file is always one whole version", async () => {
    const dir = tempHome();
    const file = join(dir, "keyring.json");
    const child = join(dir, "writer.ts");
    const big = "x".repeat(256 * 1024);
    writeFileSync(
      child,
      `import { writeFileAtomic } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, "../../src/store/atomic-write.ts")).href)};
for (let i = 0; ; i++) { writeFileAtomic(${JSON.stringify(file)}, JSON.stringify({ i, big: ${JSON.stringify(big)} }), 0o600); if (i === 3) console.log("writing"); }
`,
    );
    const proc = spawn(process.execPath, ["--import", "tsx", child], { stdio: ["ignore", "pipe", "inherit"] });
    // Killed as soon as it has written a few versions: it is in the middle of the next one.
    await new Promise<void>((resolve) => proc.stdout.once("data", () => resolve()));
    proc.kill("SIGKILL");
    await new Promise((r) => proc.once("exit", r));
    const last = JSON.parse(readFileSync(file, "utf8"));
    expect(last.i).toBeGreaterThanOrEqual(3);
    expect(last.big).toHaveLength(big.length);
    expect(existsSync(file)).toBe(true);
  });
});

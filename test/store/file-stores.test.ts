import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { jwks } from "../../src/receipt/index.js";
import { FileRedemptionStore, fileKeyStore, jwksPath } from "../../src/store/index.js";

const NOW = new Date("2030-01-01T00:00:00Z");
const dataDir = () => mkdtempSync(join(tmpdir(), "countersign-store-"));

describe("FileRedemptionStore", () => {
  it("redeems each jti exactly once, also across store instances of the same data directory", async () => {
    const dir = dataDir();
    const a = new FileRedemptionStore(dir, () => NOW.getTime());
    const b = new FileRedemptionStore(dir, () => NOW.getTime());
    expect(await a.redeem("j1", NOW.getTime() / 1000 + 300)).toBe(true);
    expect(await b.redeem("j1", NOW.getTime() / 1000 + 300)).toBe(false);
    expect(await b.redeem("j2", NOW.getTime() / 1000 + 300)).toBe(true);
    expect(statSync(join(dir, "redeemed")).mode & 0o777).toBe(0o700);
  });

  it("forgets entries past their exp, never before", async () => {
    const dir = dataDir();
    let now = NOW.getTime();
    const store = new FileRedemptionStore(dir, () => now);
    await store.redeem("old", NOW.getTime() / 1000 + 10);
    await store.redeem("live", NOW.getTime() / 1000 + 1000);
    now += 120_000; // past the first exp, and past the once-a-minute sweep
    expect(await store.redeem("other", NOW.getTime() / 1000 + 2000)).toBe(true);
    expect(readdirSync(join(dir, "redeemed"))).toHaveLength(2); // "old" is gone
    expect(await store.redeem("live", 0)).toBe(false);
  });

  it("lets exactly one of several processes racing for a jti redeem it", async () => {
    const dir = dataDir();
    const module = pathToFileURL(join(import.meta.dirname, "../../src/store/file-redemption-store.ts")).href;
    const script = `import { FileRedemptionStore } from ${JSON.stringify(module)};\nconst ok = await new FileRedemptionStore(${JSON.stringify(dir)}).redeem("race", 4102444800);\nprocess.stdout.write(String(ok));`;
    const run = () =>
      new Promise<string>((resolve) => {
        const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
          stdio: ["ignore", "pipe", "inherit"],
        });
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        child.on("exit", () => resolve(out));
      });
    const results = await Promise.all([run(), run(), run(), run()]);
    expect(results.sort()).toEqual(["false", "false", "false", "true"]);
  });
});

describe("fileKeyStore", () => {
  it("makes the keyring on first use, rotates it, and publishes the JWKS beside it", async () => {
    const dir = dataDir();
    const store = fileKeyStore(dir);
    const first = await store.keyring(NOW);
    expect((await store.keyring(NOW)).active.kid).toBe(first.active.kid);
    const rotated = await store.rotate(NOW);
    expect(rotated.active.kid).not.toBe(first.active.kid);
    expect(rotated.keys.map((k) => k.kid)).toEqual([first.active.kid, rotated.active.kid]);
    expect(JSON.parse(readFileSync(jwksPath(dir), "utf8"))).toEqual(jwks(rotated, NOW));
  });
});

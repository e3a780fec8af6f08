import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** A frozen copy of the shipped manifests, so that line numbers in the expectations stay put. */
export const fixtureDir = join(dirname(fileURLToPath(import.meta.url)), "fixture");

/**
 * Copy a manifest directory to `<temp>/manifests`, give every connector a small fake wasm where its
 * manifest points, and pin its real sha256. Returns the copied manifest directory.
 */
export function copyWithFakeWasm(source: string = fixtureDir): string {
  const dir = join(mkdtempSync(join(tmpdir(), "countersign-manifests-")), "manifests");
  cpSync(source, dir, { recursive: true });
  for (const connector of readdirSync(dir)) {
    const manifest = join(dir, connector, "connector.toml");
    let text: string;
    try {
      text = readFileSync(manifest, "utf8");
    } catch {
      continue;
    }
    const wasm = /^wasm = "(.*)"$/m.exec(text)?.[1];
    if (wasm === undefined) continue;
    const bytes = Buffer.from(`\0asm fake ${connector} plugin`);
    const wasmPath = resolve(dirname(manifest), wasm);
    mkdirSync(dirname(wasmPath), { recursive: true });
    writeFileSync(wasmPath, bytes);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    writeFileSync(manifest, text.replace(/^sha256 = ".*"$/m, `sha256 = "${sha256}"`));
  }
  return dir;
}

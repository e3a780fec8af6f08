import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadManifests } from "../../../src/config/index.js";
import type { ManifestSet } from "../../../src/manifest/manifest-set.js";
import type { EffectOptions } from "../../../src/constraint/index.js";

const shippedDir = fileURLToPath(new URL("../../../manifests", import.meta.url));
let cached: ManifestSet | undefined;

/**
 * The shipped manifests. If their wasm pins do not match (a connector being rebuilt), a temp copy
 * whose connectors point at a placeholder wasm with a matching hash: the analyzer never loads wasm.
 */
export function testManifests(): ManifestSet {
  if (cached !== undefined) return cached;
  try {
    cached = loadManifests(shippedDir);
  } catch {
    cached = loadManifests(repinnedCopy());
  }
  return cached;
}

function repinnedCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), "countersign-manifests-"));
  cpSync(shippedDir, dir, { recursive: true });
  const wasm = Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]); // an empty module
  writeFileSync(join(dir, "placeholder.wasm"), wasm);
  const sha256 = createHash("sha256").update(wasm).digest("hex");
  for (const connector of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    const file = join(dir, connector.name, "connector.toml");
    const text = readFileSync(file, "utf8")
      .replace(/^wasm = .*$/m, 'wasm = "../placeholder.wasm"')
      .replace(/^sha256 = .*$/m, `sha256 = "${sha256}"`);
    writeFileSync(file, text);
  }
  return dir;
}

/** What the manifests say about each op, as the analyzer's guarantee check and the wrappers read it. */
export function effectOptions(set: ManifestSet): EffectOptions {
  return {
    inputsOf: (op) => set.actions.get(op)?.manifest.inputs.map((i) => i.name),
    idempotent: (op) => set.actions.get(op)?.manifest.idempotent === true,
  };
}

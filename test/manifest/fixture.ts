import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "smol-toml";
import { wasmExporting } from "../support/wasm-module.js";

/** A frozen copy of the shipped manifests, so that line numbers in the expectations stay put. */
export const fixtureDir = join(dirname(fileURLToPath(import.meta.url)), "fixture");

/**
 * Copy a manifest directory to `<temp>/manifests`, give every connector a small stand-in wasm
 * where its manifest points — a valid module exporting every op the actions' [[execute]] steps
 * call on it — and pin its real sha256. Returns the copied manifest directory.
 */
export function copyWithFakeWasm(source: string = fixtureDir): string {
  const dir = join(mkdtempSync(join(tmpdir(), "countersign-manifests-")), "manifests");
  cpSync(source, dir, { recursive: true });
  const ops = opsByConnector(dir);
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
    const bytes = wasmExporting([...(ops.get(connector) ?? [])].sort());
    const wasmPath = resolve(dirname(manifest), wasm);
    mkdirSync(dirname(wasmPath), { recursive: true });
    writeFileSync(wasmPath, bytes);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    writeFileSync(manifest, text.replace(/^sha256 = ".*"$/m, `sha256 = "${sha256}"`));
  }
  return dir;
}

/** The ops the actions of a manifest directory call, per connector. */
function opsByConnector(dir: string): Map<string, Set<string>> {
  const ops = new Map<string, Set<string>>();
  for (const connector of readdirSync(dir)) {
    for (const name of readdirSync(join(dir, connector)).filter((n) => n.endsWith(".toml") && n !== "connector.toml")) {
      const steps =
        (parse(readFileSync(join(dir, connector, name), "utf8")) as { execute?: { connector: string; op: string }[] })
          .execute ?? [];
      for (const step of steps) ops.set(step.connector, (ops.get(step.connector) ?? new Set()).add(step.op));
    }
  }
  return ops;
}

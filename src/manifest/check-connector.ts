import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ManifestError } from "./manifest-error.js";
import { fieldError, type ManifestFile } from "./manifest-file.js";
import type { ConnectorManifest } from "./schema.js";

/** The rules of one schema-valid connector manifest: its name, its pinned wasm, its credential. */
export function checkConnector(file: ManifestFile, connector: ConnectorManifest, directory: string): ManifestError[] {
  const errors: ManifestError[] = [];
  const error = (path: string[], message: string): void => void errors.push(fieldError(file, path, message));

  if (connector.name !== directory) error(["name"], `"${connector.name}" does not match its directory ${directory}/`);

  let wasm: Buffer | undefined;
  try {
    wasm = readFileSync(wasmPathOf(file, connector));
  } catch {
    error(["wasm"], `${connector.wasm} not found (the sha256 pin cannot be checked)`);
  }
  if (wasm !== undefined) {
    const actual = createHash("sha256").update(wasm).digest("hex");
    if (actual !== connector.sha256) {
      const pin = /^0+$/.test(connector.sha256) ? "is a placeholder" : "does not match the wasm";
      error(["sha256"], `${pin}: ${connector.wasm} has sha256 ${actual}`);
    }
  }

  const credential = connector.capabilities.credential;
  if (credential !== undefined) {
    const at = ["capabilities", "credential"];
    if (credential.kind === "none") {
      if (credential.header !== undefined) error([...at, "header"], `kind "none" takes no header`);
      if (credential.format !== undefined) error([...at, "format"], `kind "none" takes no format`);
    } else {
      if (credential.header === undefined) error([...at, "header"], `is required for kind "${credential.kind}"`);
      if (credential.format === undefined) error([...at, "format"], `is required for kind "${credential.kind}"`);
      else if (!credential.format.includes("{token}")) error([...at, "format"], `must contain {token}`);
    }
  }
  return errors;
}

/** Where a connector manifest's wasm lives: its `wasm` path resolved against the manifest file. */
export function wasmPathOf(file: ManifestFile, connector: ConnectorManifest): string {
  return resolve(dirname(file.path), connector.wasm);
}

import { createHash } from "node:crypto";
import { dirname, resolve } from "node:path";
import { wasm } from "../model/index.js";
import type { ManifestError } from "./manifest-error.js";
import { fieldError, type ManifestFile } from "./manifest-file.js";
import type { ReadWasm } from "./manifest-tree.js";
import type { ConnectorManifest } from "./schema.js";

/** A connector manifest's errors, and the functions its plugin exports when the wasm could be read and compiled. */
export interface ConnectorCheck {
  errors: ManifestError[];
  exports?: ReadonlySet<string>;
}

/** The rules of one schema-valid connector manifest: its name, its pinned wasm (a valid module), its credential. */
export function checkConnector(
  file: ManifestFile,
  connector: ConnectorManifest,
  directory: string,
  readWasm: ReadWasm,
): ConnectorCheck {
  const errors: ManifestError[] = [];
  const error = (path: string[], message: string): void => void errors.push(fieldError(file, path, message));

  if (connector.name !== directory) error(["name"], `"${connector.name}" does not match its directory ${directory}/`);

  let exports: Set<string> | undefined;
  const read = readWasm(wasmPathOf(file, connector));
  if ("problem" in read) {
    error(["wasm"], `${connector.wasm} ${read.problem} (the sha256 pin cannot be checked)`);
  } else {
    const actual = createHash("sha256").update(read.bytes).digest("hex");
    if (actual !== connector.sha256) {
      const pin = /^0+$/.test(connector.sha256) ? "is a placeholder" : "does not match the wasm";
      error(["sha256"], `${pin}: ${connector.wasm} has sha256 ${actual}`);
    }
    try {
      const module = new wasm.Module(read.bytes);
      exports = new Set(
        wasm.Module.exports(module)
          .filter((e) => e.kind === "function")
          .map((e) => e.name),
      );
    } catch (err) {
      error(["wasm"], `${connector.wasm} is not a valid WebAssembly module: ${(err as Error).message}`);
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
  return exports === undefined ? { errors } : { errors, exports };
}

/** Where a connector manifest's wasm lives: its `wasm` path resolved against the manifest file. */
export function wasmPathOf(file: ManifestFile, connector: ConnectorManifest): string {
  return resolve(dirname(file.path), connector.wasm);
}

import { readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { CountersignError } from "../model/errors.js";
import { checkAction } from "./check-action.js";
import { checkConnector, wasmPathOf } from "./check-connector.js";
import { actionFunctionName } from "./function-name.js";
import { compareManifestErrors, formatManifestError, type ManifestError } from "./manifest-error.js";
import { fieldError } from "./manifest-file.js";
import type { LoadedAction, LoadedConnector, ManifestSet } from "./manifest-set.js";
import { parseManifestFile, type ParsedManifest } from "./parse-manifest-file.js";
import { ActionManifest, ConnectorManifest } from "./schema.js";

export interface ManifestCheck {
  set?: ManifestSet; // present exactly when errors is empty
  errors: ManifestError[];
  connectors: number; // connector directories found, valid or not
  actions: number; // action files found, valid or not
}

interface Loaded {
  connectors: Map<string, LoadedConnector>;
  actions: Map<string, LoadedAction>;
}

interface ConnectorDir {
  name: string;
  connector?: ParsedManifest<ConnectorManifest>;
  actions: ParsedManifest<ActionManifest>[];
}

/**
 * Load every manifest of `dir` (`<connector>/connector.toml` and `<connector>/<action>.toml`),
 * validate each file and the rules between them, and report all problems together.
 */
export function checkManifests(dir: string): ManifestCheck {
  const root = resolve(dir);
  let scan: { dirs: ConnectorDir[]; errors: ManifestError[] };
  try {
    scan = readConnectorDirs(root);
  } catch (err) {
    const message = `cannot read the manifest directory: ${(err as Error).message}`;
    return { errors: [{ file: ".", field: "", message }], connectors: 0, actions: 0 };
  }
  const { dirs, errors } = scan;
  const loaded: Loaded = { connectors: new Map(), actions: new Map() };
  const connectorNames = new Set(dirs.map((d) => d.name));
  for (const connectorDir of dirs) errors.push(...checkConnectorDir(connectorDir, connectorNames, loaded));
  errors.sort(compareManifestErrors);
  const found = { connectors: dirs.length, actions: dirs.reduce((n, d) => n + d.actions.length, 0) };
  return errors.length > 0 ? { errors, ...found } : { set: { dir: root, ...loaded }, errors, ...found };
}

/** Parse every TOML file of every connector directory; files outside a connector directory are errors. */
function readConnectorDirs(root: string): { dirs: ConnectorDir[]; errors: ManifestError[] } {
  const dirs: ConnectorDir[] = [];
  const errors: ManifestError[] = [];
  for (const entry of listSorted(root)) {
    const path = join(root, entry);
    if (!isDirectory(path)) {
      if (entry.endsWith(".toml")) {
        errors.push({ file: entry, field: "", message: "manifests belong in a connector directory: <connector>/<action>.toml" });
      }
      continue;
    }
    const tomls = listSorted(path).filter((name) => name.endsWith(".toml") && !isDirectory(join(path, name)));
    if (tomls.length === 0) continue;
    const connectorDir: ConnectorDir = { name: entry, actions: [] };
    for (const name of tomls) {
      const rel = `${entry}/${name}`;
      if (name === "connector.toml") connectorDir.connector = parseManifestFile(join(path, name), rel, ConnectorManifest);
      else connectorDir.actions.push(parseManifestFile(join(path, name), rel, ActionManifest));
    }
    if (connectorDir.connector === undefined) {
      errors.push({ file: `${entry}/connector.toml`, field: "", message: `missing: the actions in ${entry}/ have no connector manifest` });
    }
    dirs.push(connectorDir);
  }
  return { dirs, errors };
}

/** The errors of one connector directory; what is valid goes into `loaded`. */
function checkConnectorDir(connectorDir: ConnectorDir, connectorNames: ReadonlySet<string>, loaded: Loaded): ManifestError[] {
  const errors: ManifestError[] = [];
  const { name: directory, connector } = connectorDir;
  const { connectors, actions } = loaded;
  if (connector !== undefined) {
    errors.push(...connector.errors);
    if (connector.data !== undefined) {
      errors.push(...checkConnector(connector.file, connector.data, directory));
      const wasmPath = wasmPathOf(connector.file, connector.data);
      connectors.set(directory, { name: directory, file: connector.file.path, wasmPath, manifest: connector.data });
    }
  }

  // Names first: a duplicate (or a name that maps to the same function) is reported once, then set aside.
  const byName = new Map<string, ParsedManifest<ActionManifest>>();
  const byFunction = new Map<string, ParsedManifest<ActionManifest>>();
  for (const action of connectorDir.actions) {
    errors.push(...action.errors);
    if (action.data === undefined) continue;
    const { name } = action.data;
    const sameName = byName.get(name);
    const sameFunction = byFunction.get(actionFunctionName(name));
    if (sameName !== undefined) {
      errors.push(fieldError(action.file, ["name"], `duplicate action "${name}" (also in ${sameName.file.rel})`));
    } else if (sameFunction !== undefined) {
      const other = sameFunction.data?.name ?? "";
      const message = `"${name}" and "${other}" (${sameFunction.file.rel}) both become the function ${actionFunctionName(name)}`;
      errors.push(fieldError(action.file, ["name"], message));
    } else {
      byName.set(name, action);
      byFunction.set(actionFunctionName(name), action);
    }
  }

  const broken = new Set(connectorDir.actions.filter((a) => a.data === undefined).map((a) => basename(a.file.rel, ".toml")));
  const valid = new Map([...byName].map(([name, action]) => [name, action.data as ActionManifest]));
  const context = { connector: directory, actions: valid, broken, connectors: connectorNames };
  for (const [name, action] of byName) {
    const manifest = action.data as ActionManifest;
    errors.push(...checkAction(action.file, manifest, context));
    const op = `${directory}.${name}`;
    actions.set(op, { op, connector: directory, name, file: action.file.path, manifest });
  }
  return errors;
}

/** `checkManifests`, throwing one config_error whose `details.errors` lists every problem. */
export function loadManifests(dir: string): ManifestSet {
  const { set, errors } = checkManifests(dir);
  if (set !== undefined) return set;
  const lines = errors.map((error) => `  ${formatManifestError(error)}`);
  const count = errors.length === 1 ? "1 error" : `${errors.length} errors`;
  throw new CountersignError("config_error", "manifest", `invalid manifests in ${resolve(dir)} (${count}):\n${lines.join("\n")}`, {
    details: { dir: resolve(dir), errors },
  });
}

function listSorted(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => !name.startsWith("."))
    .sort();
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

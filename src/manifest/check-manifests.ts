import { basename } from "node:path";
import { CountersignError } from "../model/index.js";
import { checkAction } from "./check-action.js";
import { checkConnector, wasmPathOf } from "./check-connector.js";
import { actionFunctionName } from "./function-name.js";
import { compareManifestErrors, formatManifestError, type ManifestError } from "./manifest-error.js";
import { fieldError } from "./manifest-file.js";
import type { LoadedAction, LoadedConnector, ManifestSet } from "./manifest-set.js";
import type { ManifestSource, ManifestTree, ReadWasm } from "./manifest-tree.js";
import { parseManifestFile, type ParsedManifest } from "./parse-manifest-file.js";
import { ActionManifest, ConnectorManifest } from "./schema.js";

export interface ManifestCheck {
  set?: ManifestSet; // present exactly when errors is empty
  errors: ManifestError[];
  connectors: number; // connector directories found, valid or not
  actions: number; // action files found, valid or not
}

interface ConnectorDir {
  name: string;
  connector?: ParsedManifest<ConnectorManifest>;
  actions: ParsedManifest<ActionManifest>[];
}

/**
 * Validate every manifest of a tree, each file and the rules between them (docs/architecture.md section 5),
 * and report all problems together, sorted by file and line. Connectors first: actions are
 * checked against what their connectors' plugins export.
 */
export function checkManifestTree(tree: ManifestTree, readWasm: ReadWasm): ManifestCheck {
  const errors = [...tree.problems];
  const dirs = tree.connectors.map(({ name, files }) => parseConnectorDir(name, files));
  for (const d of dirs) {
    if (d.connector === undefined)
      errors.push({
        file: `${d.name}/connector.toml`,
        field: "",
        message: `missing: the actions in ${d.name}/ have no connector manifest`,
      });
  }
  const connectors = new Map<string, LoadedConnector>();
  const exports = new Map<string, ReadonlySet<string>>();
  for (const { name, connector } of dirs) {
    if (connector === undefined) continue;
    errors.push(...connector.errors);
    if (connector.data === undefined) continue;
    const checked = checkConnector(connector.file, connector.data, name, readWasm);
    errors.push(...checked.errors);
    if (checked.exports !== undefined) exports.set(name, checked.exports);
    connectors.set(name, {
      name,
      file: connector.file.path,
      wasmPath: wasmPathOf(connector.file, connector.data),
      manifest: connector.data,
    });
  }
  const actions = new Map<string, LoadedAction>();
  const connectorNames = new Set(dirs.map((d) => d.name));
  for (const d of dirs) errors.push(...checkActions(d, connectorNames, exports, actions));
  errors.sort(compareManifestErrors);
  const found = { connectors: dirs.length, actions: dirs.reduce((n, d) => n + d.actions.length, 0) };
  return errors.length > 0 ? { errors, ...found } : { set: { dir: tree.dir, connectors, actions }, errors, ...found };
}

function parseConnectorDir(name: string, files: readonly ManifestSource[]): ConnectorDir {
  const dir: ConnectorDir = { name, actions: [] };
  for (const source of files) {
    if (basename(source.rel) === "connector.toml") dir.connector = parseManifestFile(source, ConnectorManifest);
    else dir.actions.push(parseManifestFile(source, ActionManifest));
  }
  return dir;
}

/** The errors of one connector directory's actions; the valid ones go into `loaded`. */
function checkActions(
  connectorDir: ConnectorDir,
  connectorNames: ReadonlySet<string>,
  exports: ReadonlyMap<string, ReadonlySet<string>>,
  loaded: Map<string, LoadedAction>,
): ManifestError[] {
  const errors: ManifestError[] = [];
  const directory = connectorDir.name;
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

  const broken = new Set(
    connectorDir.actions.filter((a) => a.data === undefined).map((a) => basename(a.file.rel, ".toml")),
  );
  const valid = new Map([...byName].map(([name, action]) => [name, action.data as ActionManifest]));
  const context = { connector: directory, actions: valid, broken, connectors: connectorNames, exports };
  for (const [name, action] of byName) {
    const manifest = action.data as ActionManifest;
    const checked = checkAction(action.file, manifest, context);
    errors.push(...checked.errors);
    const op = `${directory}.${name}`;
    loaded.set(op, { op, connector: directory, name, file: action.file.path, manifest, templates: checked.templates });
  }
  return errors;
}

/** The config_error for a manifest directory with problems: every one in the message and in `details.errors`. */
export function manifestsError(dir: string, errors: readonly ManifestError[]): CountersignError {
  const lines = errors.map((error) => `  ${formatManifestError(error)}`);
  const count = errors.length === 1 ? "1 error" : `${errors.length} errors`;
  return new CountersignError(
    "config_error",
    "manifest",
    `invalid manifests in ${dir} (${count}):\n${lines.join("\n")}`,
    {
      details: { dir, errors },
    },
  );
}

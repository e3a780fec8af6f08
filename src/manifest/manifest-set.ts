import type { AgentActions } from "./agent-actions.js";
import type { ActionManifest, ConnectorManifest } from "./schema.js";
import type { Template } from "./template.js";

/** One action manifest after loading: `op` is "<connector>.<action>", e.g. "email.send_draft". */
export interface LoadedAction {
  op: string;
  connector: string;
  name: string;
  file: string; // absolute path of the .toml
  manifest: ActionManifest;
  templates: ActionTemplates;
}

/**
 * The `${…}` inputs of an action, parsed when it was loaded: one per [[execute]] step, the preview's args, and the
 * resolve op's args.
 */
export interface ActionTemplates {
  execute: Template[];
  preview: Template | null;
  resolve?: Template; // only for an action with [resolve]
}

/** One connector manifest after loading; `wasmPath` is absolute, resolved against the manifest file. */
export interface LoadedConnector {
  name: string;
  file: string;
  wasmPath: string;
  manifest: ConnectorManifest;
}

/** Every manifest of a directory, validated together (schema and cross-file rules). */
export interface ManifestSet {
  dir: string;
  connectors: ReadonlyMap<string, LoadedConnector>;
  actions: ReadonlyMap<string, LoadedAction>; // keyed by op
  // actions an agent submitted with its program (never in `actions`: the policy and grants see only trusted ops)
  agent?: AgentActions;
}

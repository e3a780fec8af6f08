import type { LoadedAction } from "./manifest-set.js";

/** The namespace of agent-submitted actions: `agent.<name>`, imported from `trusted/agent`. */
export const AGENT_CONNECTOR = "agent";

/** An agent-submitted action after its checks: `op` is "agent.<name>"; each step's trusted action, in order. */
export interface AgentAction extends LoadedAction {
  steps: readonly LoadedAction[];
  previewOp: string | null; // the trusted read its [approval.preview] runs, on one of its steps' connectors
}

/**
 * What bounds a step's URL or path statically: per connector, the hosts (`host:port`) and fs roots
 * the connector's manifest and the user's connections allow. A connector missing here has no
 * known list, so its steps are bounded only at run time (the grant and the connector's own checks).
 */
export interface Allowlists {
  hosts: Readonly<Record<string, readonly string[]>>;
  roots: Readonly<Record<string, readonly string[]>>;
}

/** The agent actions submitted with one program, checked against one trusted set. */
export interface AgentActions {
  sha256: string; // agentManifestsHash of the submitted manifests: what a receipt binds
  text: string; // their canonical text (agentManifestsText), which sha256 hashes: what a request keeps
  actions: ReadonlyMap<string, AgentAction>; // keyed by op
  allowlists: Allowlists;
}

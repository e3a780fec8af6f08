// Action and connector manifests: schemas, the checks over a manifest tree, the agent API.
export { checkManifestTree, manifestsError, type ManifestCheck } from "./check-manifests.js";
export { compareManifestErrors, formatManifestError, type ManifestError } from "./manifest-error.js";
export type { ActionTemplates, LoadedAction, LoadedConnector, ManifestSet } from "./manifest-set.js";
export type { ManifestSource, ManifestTree, ReadWasm } from "./manifest-tree.js";
export { parseTemplate, type Reference, type Template } from "./template.js";
export { generateApi, type ApiDeclarations } from "./generate-api.js";
export { actionFunctionName, findActionByFunction } from "./function-name.js";
export { ActionManifest, ConnectorManifest, HostPort } from "./schema.js";
export { manifestsHash } from "./manifests-hash.js";
export { everyResultField, resultSchema } from "./result-fields.js";
export type { ActionInput, ResultField } from "./schema.js";
export { effectOptionsOf } from "./effect-options.js";
export { AGENT_CONNECTOR, type AgentAction, type AgentActions, type Allowlists } from "./agent-actions.js";
export { AGENT_LIMITS } from "./agent-limits.js";
export {
  agentManifestsError,
  agentManifestsHash,
  agentManifestsText,
  checkAgentManifests,
  checkStoredAgentManifests,
  declaredAllowlists,
  storedAgentManifests,
  type AgentManifestCheck,
} from "./check-agent-manifests.js";
export { boundedInputs } from "./step-bounds.js";

import { AGENT_CONNECTOR } from "./agent-actions.js";
import type { LoadedAction, ManifestSet } from "./manifest-set.js";

/** The agent API's name for an action: snake_case to camelCase (send_draft -> sendDraft). */
export function actionFunctionName(action: string): string {
  return action.replace(/_+([a-z0-9])/g, (_, c: string) => c.toUpperCase()).replace(/_+$/, "");
}

/** The action of `connector` that the agent API exports as `functionName`, if any. */
export function findActionByFunction(
  set: ManifestSet,
  connector: string,
  functionName: string,
): LoadedAction | undefined {
  const actions = connector === AGENT_CONNECTOR ? (set.agent?.actions ?? new Map<string, LoadedAction>()) : set.actions;
  for (const action of actions.values()) {
    if (action.connector === connector && actionFunctionName(action.name) === functionName) return action;
  }
  return undefined;
}

// Names that cannot follow `export function` (reserved words, strict-mode and module reserved words).
const reserved = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for " +
    "function if import in instanceof new null return super switch this throw true try typeof var void while with " +
    "yield let static implements interface package private protected public await arguments eval"
  ).split(" "),
);

export function isReservedWord(name: string): boolean {
  return reserved.has(name);
}

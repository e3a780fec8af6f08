// What the agent is given of a run: its value and text with quarantined parts held back as handles.
export { quarantineValue, describeHeld, type Quarantined } from "./quarantine-value.js";
export { withheldText, type RunText } from "./withheld-text.js";
export { resolveHandles, type KnownHandle } from "./resolve-handles.js";

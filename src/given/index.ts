// What a run gives its agent (quarantined parts held back as handles), what the agent was given,
// and its later programs read in that light.
export { givenOf } from "./given-of.js";
export { contextOf, COPIED_RUN, markPasted, type MarkOptions } from "./mark-pasted.js";
export { normalizeMailbox, normalizeText } from "./normalize.js";
export { quarantineValue, describeHeld, type Quarantined } from "./quarantine-value.js";
export { withheldText, type RunText } from "./withheld-text.js";
export { handlesTakenUp, resolveHandles, type KnownHandle } from "./resolve-handles.js";

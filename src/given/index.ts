// What an agent was given by its runs, and its later programs read in that light.
export { givenOf } from "./given-of.js";
export { contextOf, COPIED_RUN, markPasted, type MarkOptions } from "./mark-pasted.js";
export { normalizeMailbox, normalizeText } from "./normalize.js";

// The environment folder's public surface: every module's exports.
export * from "./declarations.js";
export * from "./environment.js";
export * from "./harden.js";
export * from "./lookup.js";

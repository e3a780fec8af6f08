import type { Command } from "./command.js";

/**
 * Every command, loaded lazily so a command pays only for the modules it uses
 * (the TypeScript compiler behind `check` is by far the largest). One line per command file.
 */
export const commands: Record<string, () => Promise<Command>> = {
  manifests: () => import("./manifests.js").then((m) => m.default),
  api: () => import("./api.js").then((m) => m.default),
  policy: () => import("./policy.js").then((m) => m.default),
  keys: () => import("./keys.js").then((m) => m.default),
  receipt: () => import("./receipt.js").then((m) => m.default),
  check: () => import("./check.js").then((m) => m.default),
};

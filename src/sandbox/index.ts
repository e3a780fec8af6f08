// The sandbox's public surface: run an approved program in QuickJS.
export { runProgram, type RunRequest, type RunResult } from "./run-program.js";
export { prepareRun } from "./prepare-run.js";
export { sandboxApi, type SandboxApi } from "./host-modules.js";
export { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "./limits.js";
export type { CallRecord, Invoke, LogLine } from "./run-state.js";
export type { Thrown } from "./describe.js";

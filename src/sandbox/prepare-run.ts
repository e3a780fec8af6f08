import { checkLimits, DEFAULT_SANDBOX_LIMITS } from "./limits.js";
import { programSource } from "./program-source.js";
import type { RunRequest } from "./run-program.js";
import { giveBack, takeThread } from "./sandbox-thread.js";
import { apiData } from "./worker-protocol.js";

/**
 * Make ahead what a run of this program needs before its first line runs: the transpiled program,
 * a sandbox thread, and in it the program's realm (a fresh QuickJS instance with the host's
 * functions, the modules it imports and the lockdown), e.g. while the run waits for its approval.
 * The next runProgram of a program with the same imports, API and memory size takes that realm;
 * no code runs in it before, and no other run gets it. One realm is kept at a time: the next
 * prepareRun or runProgram takes or replaces it. Best effort: what fails here (bytes that do not
 * match `sha256`, say) fails again, and is reported, when the program is run.
 */
export function prepareRun(request: Omit<RunRequest, "invoke">): void {
  try {
    const limits = checkLimits({ ...DEFAULT_SANDBOX_LIMITS, ...request.limits });
    const imports = [...programSource(request.source, request.sha256, request.entry).imports];
    const thread = takeThread(limits.memoryBytes);
    thread.post({ type: "prepare", spec: { api: apiData(request.api), imports, limits } });
    giveBack(thread);
  } catch {
    return;
  }
}

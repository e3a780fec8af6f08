import type { SandboxApi } from "./host-modules.js";
import { checkLimits, DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "./limits.js";
import { programSource } from "./program-source.js";
import { buildRealm, disposeRealm, realmFits, type Realm } from "./realm.js";
import type { RunRequest } from "./run-program.js";

// The realm prepareRun made for the next run, or is making; one at a time.
let prepared: Promise<Realm> | undefined;

/**
 * Make ahead what a run of this program needs before its first line runs: the transpiled program
 * and its realm (a fresh QuickJS instance with the host's functions, the modules it imports and
 * the lockdown), e.g. while the run waits for its approval. The next runProgram of a program with
 * the same imports, API and memory size takes that realm; no code runs in it before, and no
 * other run gets it. One realm is kept at a time: the next prepareRun or runProgram takes or
 * replaces it. Best effort: what fails here (bytes that do not match `sha256`, say) fails again,
 * and is reported, when the program is run.
 */
export function prepareRun(request: Omit<RunRequest, "invoke">): void {
  let limits: SandboxLimits;
  let imports: ReadonlySet<string>;
  try {
    limits = checkLimits({ ...DEFAULT_SANDBOX_LIMITS, ...request.limits });
    imports = programSource(request.source, request.sha256, request.entry).imports;
  } catch {
    return;
  }
  const earlier = prepared;
  prepared = buildRealm(request.api, imports, limits);
  prepared.catch(() => undefined); // a failed build is built again, and reported, by the run
  earlier?.then(disposeRealm, () => undefined);
}

/** The realm for a run: the prepared one when it fits (it is taken, never shared), else a new one. */
export async function takeRealm(api: SandboxApi, imports: ReadonlySet<string>, limits: SandboxLimits): Promise<Realm> {
  const ahead = prepared;
  prepared = undefined;
  const realm = await ahead?.catch(() => undefined);
  if (realm !== undefined) {
    if (realmFits(realm, api, imports, limits)) return realm;
    disposeRealm(realm);
  }
  return buildRealm(api, imports, limits);
}

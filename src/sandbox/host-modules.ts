import { contractsByConnector } from "../../trusted/contracts/index.js";
import { actionFunctionName } from "../manifest/index.js";
import type { ManifestSet } from "../manifest/index.js";
import type { ContractHelper } from "../model/index.js";
import { callText, CountersignError } from "../model/index.js";
import { programModule } from "./realm-program-module.js";
import { connectorModule, contractsModule } from "./realm-trusted-modules.js";

/** What the modules a program imports offer: per connector, its functions' ops and its contract helpers. */
export interface SandboxApi {
  actions: Readonly<Record<string, Readonly<Record<string, string>>>>; // connector -> function name -> op
  contracts: Readonly<Record<string, readonly ContractHelper[]>>; // connector -> helpers
}

/**
 * The API the analyzer compiles programs against (generateApi), as the sandbox serves it: the
 * agent actions the set holds are `trusted/agent`, their calls handed to the host like any other.
 * Made once per set (sets are never changed), so that what is built per API (the modules, a realm
 * prepareRun made) serves every run of that set.
 */
export function sandboxApi(set: ManifestSet): SandboxApi {
  let api = apis.get(set);
  if (api === undefined) apis.set(set, (api = buildApi(set)));
  return api;
}

const apis = new WeakMap<ManifestSet, SandboxApi>();

function buildApi(set: ManifestSet): SandboxApi {
  const actions: Record<string, Record<string, string>> = {};
  for (const connector of set.connectors.keys()) actions[connector] = {};
  for (const action of [...set.actions.values(), ...(set.agent?.actions.values() ?? [])])
    (actions[action.connector] ??= {})[actionFunctionName(action.name)] = action.op;
  const contracts = Object.fromEntries(
    Object.entries(contractsByConnector).filter(([connector]) => set.connectors.has(connector)),
  );
  for (const functions of Object.values(actions)) Object.freeze(functions);
  // shared by every run of the set
  return Object.freeze({ actions: Object.freeze(actions), contracts: Object.freeze(contracts) });
}

/**
 * The global through which the generated modules reach the host. The modules read it once, when
 * they are evaluated before the lockdown; the lockdown deletes it, so a program never sees it.
 */
export const HOST_GLOBAL = "__countersign_host";

/**
 * The op under which `fromHandle` reaches the host, as a trusted call does: the run's thread
 * answers it with the held value (RunRequest.readHandle), never a connector. No connector is
 * named `countersign`, so no manifest's op can be this one.
 */
export const FROM_HANDLE_OP = "countersign.from_handle";

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function exportName(name: string): string {
  if (!IDENTIFIER.test(name))
    throw new CountersignError(
      "internal_error",
      "sandbox",
      `cannot export ${JSON.stringify(name)} from a sandbox module`,
    );
  return name;
}

/**
 * The source of every module a program may import, by name: `countersign` (program and
 * fromHandle, see realm-program-module.ts), each `trusted/<connector>` (a function per action,
 * see realm-trusted-modules.ts) and each `trusted/<connector>/contracts` (the helpers, built on
 * the host). The exports are made by typed functions; the text only calls one and names what
 * it returns as the module's exports, which a module must name in its text.
 */
export function hostModules(api: SandboxApi): ReadonlyMap<string, string> {
  let modules = built.get(api);
  if (modules === undefined) built.set(api, (modules = buildModules(api)));
  return modules;
}

// The modules of each API, made once: a run's setup is on every run's path.
const built = new WeakMap<SandboxApi, ReadonlyMap<string, string>>();

function buildModules(api: SandboxApi): Map<string, string> {
  const host = JSON.stringify(HOST_GLOBAL);
  const modules = new Map<string, string>();
  modules.set(
    "countersign",
    moduleText(callText(programModule, host, JSON.stringify(FROM_HANDLE_OP)), ["program", "fromHandle"]),
  );
  for (const [connector, functions] of Object.entries(api.actions))
    modules.set(
      `trusted/${connector}`,
      moduleText(callText(connectorModule, host, JSON.stringify(Object.entries(functions))), Object.keys(functions)),
    );
  for (const [connector, helpers] of Object.entries(api.contracts)) {
    if (helpers.length === 0) continue;
    const names = helpers.map((h) => h.name);
    modules.set(
      `trusted/${connector}/contracts`,
      moduleText(callText(contractsModule, host, JSON.stringify(connector), JSON.stringify(names)), names),
    );
  }
  return modules;
}

/** A module exporting the named members of what `call` returns. */
function moduleText(call: string, names: readonly string[]): string {
  const list = names.map(exportName).join(", ");
  return `const { ${list} } = ${call};\nexport { ${list} };\n`;
}

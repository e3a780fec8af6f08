import { createHash } from "node:crypto";
import { join } from "node:path";
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { loadManifests } from "../../src/config/index.js";
import type { Json } from "../../src/model/json.js";
import { packageRoot } from "../../src/model/paths.js";
import { createBridge } from "../../src/sandbox/bridge.js";
import { hostModules } from "../../src/sandbox/host-modules.js";
import { runProgram, sandboxApi, type RunResult, type SandboxLimits } from "../../src/sandbox/index.js";
import { installHost } from "../../src/sandbox/install-host.js";
import { newQuickJS } from "../../src/sandbox/quickjs.js";
import type { RunState } from "../../src/sandbox/run-state.js";
import { setUpRealm } from "../../src/sandbox/set-up-realm.js";

export const set = loadManifests(join(packageRoot, "manifests"));
export const api = sandboxApi(set);

export const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** A program whose main runs `body`, importing every email and fs function and the email contracts. */
export function program(body: string, top = ""): string {
  return `import { program } from "countersign";
import { sendEmail, draftEmail, getDraft } from "trusted/email";
import { writeFile, readFile, listDir } from "trusted/fs";
import { recipientsOnly } from "trusted/email/contracts";
${top}
export default program({
  rationale: "A test program.",
  guarantees: [recipientsOnly(["bob@example.com"])],
  async main() {
${body}
  },
});
`;
}

export interface Recorded {
  op: string;
  args: Record<string, Json>;
}

/** Run source text with an invoke that records each call and answers with `answer` (default: an echo). */
export async function run(
  source: string,
  options: { limits?: Partial<SandboxLimits>; answer?: (op: string, args: Record<string, Json>) => Promise<Json> } = {},
): Promise<RunResult & { invoked: Recorded[] }> {
  const bytes = Buffer.from(source, "utf8");
  const invoked: Recorded[] = [];
  const answer = options.answer ?? (async (op, args) => ({ ok: true, op, echo: args }));
  const result = await runProgram({
    source: bytes,
    sha256: sha256(bytes),
    entry: "program.ts",
    api,
    invoke: (op, args) => {
      invoked.push({ op, args });
      return answer(op, args);
    },
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  });
  return { ...result, invoked };
}

/** The log lines' text. */
export const texts = (result: RunResult): string[] => result.logs.map((l) => l.text);

/** A QuickJS realm built as a run builds it, holding the value of a script evaluated just before its lockdown. */
export interface SandboxRealm {
  vm: QuickJSContext;
  /** What `before` evaluated to. */
  value: QuickJSHandle;
  dispose(): void;
}

/** The realm of a run (host functions, bridge, every module, lockdown), with `before` evaluated ahead of the lockdown. */
export async function sandboxRealm(before: string): Promise<SandboxRealm> {
  const quickjs = await newQuickJS(64 << 20);
  const vm = quickjs.module.newContext();
  const state = {} as RunState; // the host's functions read the state only when called: the countersign module registers its runner
  installHost(vm, state);
  createBridge(vm);
  const value = vm.unwrapResult(vm.evalCode(before, "before-lockdown.js"));
  setUpRealm(vm, api, new Set(hostModules(api).keys()));
  return {
    vm,
    value,
    dispose() {
      quickjs.release(); // dropped whole, as a run's realm is (realm.ts)
    },
  };
}

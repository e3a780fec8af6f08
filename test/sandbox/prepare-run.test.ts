// A realm made ahead by prepareRun (while a run waits for its approval): the next run of a program
// with the same imports takes it, no other run ever gets it, and a run of another program does not
// get one built for different modules.
// The realm is built in the sandbox thread; each result says whether the run took the prepared one.
import { describe, expect, it } from "vitest";
import { prepareRun, runProgram, sandboxApi } from "../../src/sandbox/index.js";
import { api, set, sha256 } from "./helpers.js";

/** A program importing `imports` (the countersign module aside) whose main runs `body`. */
function source(imports: Record<string, string>, body: string): Uint8Array {
  const lines = Object.entries(imports).map(([module, name]) => `import { ${name} } from "${module}";`);
  return Buffer.from(`import { program } from "countersign";
${lines.join("\n")}
export default program({
  rationale: "A test program.",
  guarantees: [],
  async main() {
${body}
  },
});
`);
}

const request = (bytes: Uint8Array) => ({ source: bytes, sha256: sha256(bytes), entry: "program.ts", api });
const run = (bytes: Uint8Array) => runProgram({ ...request(bytes), invoke: async (op) => ({ op }) });

describe("prepareRun", () => {
  it("makes the realm the next run of the program takes, and a later run gets a new one", async () => {
    const bytes = source({ "trusted/fs": "listDir" }, `return await listDir({ path: "/tmp" });`);
    prepareRun(request(bytes));
    expect(await run(bytes)).toMatchObject({ outcome: "returned", value: { op: "fs.list_dir" }, preparedRealm: true });
    // Its realm is spent: the same program again runs in a realm of its own (the countersign
    // module of a used realm would refuse a second program(...)).
    expect(await run(bytes)).toMatchObject({ outcome: "returned", value: { op: "fs.list_dir" }, preparedRealm: false });
  });

  it("is taken by a run given the same manifest set's API again: sandboxApi is made once per set", async () => {
    const bytes = source({ "trusted/fs": "listDir" }, "return 1;");
    prepareRun({ ...request(bytes), api: sandboxApi(set) });
    expect(await runProgram({ ...request(bytes), api: sandboxApi(set), invoke: async () => null })).toMatchObject({
      outcome: "returned",
      value: 1,
      preparedRealm: true,
    });
    expect(Object.isFrozen(sandboxApi(set).actions.fs)).toBe(true); // shared by every run: nobody changes it
  });

  it("is not used by a program importing other modules: a module only the prepared realm holds stays out of reach", async () => {
    prepareRun(request(source({ "trusted/fs": "listDir", "trusted/email": "sendEmail" }, "")));
    const bytes = source(
      { "trusted/fs": "listDir" },
      `const email = await import("trusted/email"); return typeof email.sendEmail;`,
    );
    const result = await run(bytes);
    expect(result).toMatchObject({ outcome: "threw", thrown: { name: "Error" }, preparedRealm: false }); // the prepared realm was left, one built for this program // the loader knows no module: the import() rejects
  });

  it("is not used with another memory size", async () => {
    const bytes = source({}, "return 1;");
    prepareRun({ ...request(bytes), limits: { memoryBytes: 32 << 20 } });
    expect(await run(bytes)).toMatchObject({ outcome: "returned", value: 1, preparedRealm: false });
  });

  it("throws nothing for bytes that do not match their hash: the run refuses them", async () => {
    const bytes = source({}, "return 1;");
    expect(() => prepareRun({ ...request(bytes), sha256: "0".repeat(64) })).not.toThrow();
    await expect(
      runProgram({ ...request(bytes), sha256: "0".repeat(64), invoke: async () => null }),
    ).rejects.toMatchObject({ class: "hash_mismatch" });
  });
});

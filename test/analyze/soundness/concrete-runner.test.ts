import { afterEach, describe, expect, it } from "vitest";
import { compileProgram } from "../support/concrete-runner.js";
import { testManifests } from "../support/test-manifests.js";

const set = testManifests();

// A sparse list is refused by the trusted side: the call's promise rejects, and this program drops it.
const dropsARefusedCall = `import { program } from "countersign";
import { sendEmail } from "trusted/email";

export default program({
  rationale: "r",
  async main() {
    const to: string[] = [];
    to[1] = "a@x.com";
    sendEmail({ to, subject: "s", body: "b" });
  },
});
`;

// The promises of async callbacks that forEach and map drop reject with nobody listening.
const dropsRejectedCallbacks = `import { program } from "countersign";
import { readFile } from "trusted/fs";

export default program({
  rationale: "r",
  async main() {
    ["a", "b"].forEach(async (name) => {
      await readFile({ path: "/home/user/Sandbox/" + name });
      throw new Error("dropped " + name);
    });
    ["c"].map(async () => {
      throw new Error("dropped c");
    });
  },
});
`;

describe("the concrete runner", () => {
  const seen: unknown[] = [];
  const record = (reason: unknown) => void seen.push(reason);
  afterEach(() => void process.off("unhandledRejection", record));

  it("keeps a trusted call's refusal that the program drops inside the run, not the test process", async () => {
    process.on("unhandledRejection", record);
    const trace = compileProgram(dropsARefusedCall, set).run();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(trace.outcome).toBe("returned");
    expect(trace.calls).toEqual([]);
    // The call did not cross, yet the program made it: it counts at its site, as the sandbox records it.
    expect(trace.refused).toEqual([
      {
        op: "email.send_email",
        site: { line: 9, column: 5 },
        reason: expect.stringContaining("args.to: a list must be dense") as string,
      },
    ]);
    expect(seen).toEqual([]);
  });

  it("keeps the rejections of promises the program drops out of quiet's reach inside the run", async () => {
    process.on("unhandledRejection", record);
    const trace = compileProgram(dropsRejectedCallbacks, set).run();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(trace.outcome).toBe("returned");
    expect(trace.calls.map((c) => c.op)).toEqual(["fs.read_file", "fs.read_file"]);
    expect(seen).toEqual([]);
  });
});

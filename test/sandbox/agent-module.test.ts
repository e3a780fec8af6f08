// trusted/agent in the sandbox: the agent actions a run holds are host calls by their op, like any
// trusted function; a run without agent manifests offers no such module.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { runProgram, sandboxApi } from "../../src/sandbox/index.js";
import { CREATE_ISSUE, shipped, withAgent } from "../support/agent-manifests.js";

const source = `import { program } from "countersign";
import { createIssue } from "trusted/agent";
export default program({
  rationale: "File the bug.",
  async main() {
    return await createIssue({ repo: "acme/widgets", payload: '{"title":"Bug"}' });
  },
});
`;

async function run(api: ReturnType<typeof sandboxApi>) {
  const bytes = Buffer.from(source, "utf8");
  const invoked: { op: string; args: unknown }[] = [];
  const result = await runProgram({
    source: bytes,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    entry: "program.ts",
    api,
    invoke: async (op, args) => (invoked.push({ op, args }), { number: 7 }),
  });
  return { result, invoked };
}

describe("trusted/agent", () => {
  it("serves each agent action as a function handing its op and arguments to the host", async () => {
    const api = sandboxApi(withAgent([{ name: "create_issue.toml", text: CREATE_ISSUE }]));
    expect(api.actions.agent).toEqual({ createIssue: "agent.create_issue" });
    const { result, invoked } = await run(api);
    expect(result).toMatchObject({
      outcome: "returned",
      value: { number: 7 },
      calls: [{ op: "agent.create_issue", status: "done" }],
    });
    expect(invoked).toEqual([{ op: "agent.create_issue", args: { repo: "acme/widgets", payload: '{"title":"Bug"}' } }]);
  });

  it("is not there without agent manifests: importing it fails and nothing is called", async () => {
    const api = sandboxApi(shipped);
    expect(api.actions.agent).toBeUndefined();
    const { result, invoked } = await run(api);
    expect(result.outcome).toBe("threw");
    expect(invoked).toEqual([]);
  });
});

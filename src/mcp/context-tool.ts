import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { agentContext, AgentContext } from "../app/index.js";
import type { McpDeps } from "./deps.js";
import { toolArgs } from "./program-input.js";
import { errorResult, Next, ToolError, toolResult } from "./tool-result.js";

/** What countersign_context answers; an error result carries only `error` and `next`. */
const output = { ...AgentContext.partial().shape, error: ToolError.optional(), next: Next };

const NEXT =
  "Write the program within these bounds: files only within the folders `bounds` gives for fs.write_file and fs.make_dir, HTTP only to hosts both the policy and this runner's connectors list, mail to the user's own address when it is theirs. " +
  "Rules whose decision is allow and that surely hold let a call run without asking; prove them with guarantees. Then call countersign_api and check_program.";

/** `countersign_context`: the agent's world up front, instead of learning it from denials. */
export function registerContextTool(server: McpServer, { ctx, authority }: McpDeps): void {
  server.registerTool(
    "countersign_context",
    {
      title: "countersign context",
      description:
        "What you may do here, before you write a program: the user's own mail address, the folders files may be written in, the hosts that may be called, the policy's rules in plain words (which calls run without asking, which ask a person, which are denied) and its default, " +
        "what your own action manifests may reach, the limits a program runs under and how long requests and receipts last. `authority` is what the authority decides with; `runner` what this machine's connectors reach and its sandbox limits.",
      inputSchema: toolArgs({}),
      outputSchema: output,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (_args, { signal }) => {
      try {
        return toolResult({ ...(await agentContext(ctx, authority(), signal)), next: NEXT });
      } catch (err) {
        return errorResult(
          err,
          "The authority could not be asked: tell the user that countersign's authority is not reachable (countersign serve starts one).",
        );
      }
    },
  );
}

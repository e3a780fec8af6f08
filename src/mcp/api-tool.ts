import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { generateApi } from "../manifest/index.js";
import type { McpDeps } from "./deps.js";
import { toolArgs } from "./program-input.js";
import { Next, ToolError, toolResult } from "./tool-result.js";

/** The smallest program the analysis accepts: one promise, one trusted call. */
export const SKELETON = `import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "Tell Bob the weekly report is ready.",
  guarantees: [recipientsOnly(["bob@example.com"]), { op: "fs.*", count: { max: 0 } }],
  async main() {
    await sendEmail({ to: ["bob@example.com"], subject: "Report ready", body: "It is in /reports." });
  },
});
`;

/**
 * What countersign_api answers; optional fields: a refused call (an unknown argument) carries only `error` and `next`.
 */
const output = {
  modules: z.record(z.string(), z.string()).optional(),
  skeleton: z.string().optional(),
  error: ToolError.optional(),
  next: Next,
};

/** `countersign_api`: the declarations programs are compiled against, exactly as `countersign api` prints them. */
export function registerApiTool(server: McpServer, { ctx }: McpDeps): void {
  server.registerTool(
    "countersign_api",
    {
      title: "countersign API",
      description:
        'The TypeScript declarations of the trusted API an agent program may use (modules "countersign", "trusted/<connector>" and the contract helpers in "trusted/<connector>/contracts"), and a program skeleton. ' +
        "Read this before writing a program: a program imports only these modules, calls trusted functions directly, and promises what it will do in `guarantees` (contract helpers or { op, count } limits). Then call check_program.",
      inputSchema: toolArgs({}),
      outputSchema: output,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    () =>
      toolResult({
        modules: generateApi(ctx.manifests()).modules,
        skeleton: SKELETON,
        next: "Write the program as one file like the skeleton, then call check_program with its text.",
      }),
  );
}

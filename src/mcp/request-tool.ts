import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { RequestView } from "../app/index.js";
import type { McpDeps } from "./deps.js";
import { errorResult, Next, ToolError, toolResult } from "./tool-result.js";

/** What get_request answers; an error result carries only `error` and `next`. */
export const RequestOutput = { ...RequestView.partial().shape, error: ToolError.optional(), next: Next };

const NEXT: Record<RequestView["status"], string> = {
  pending: "A person has not decided yet: end the turn and wait for the user; do not resubmit.",
  approved: "Approved: the run that waited for it has gone on. Run the same text again only when the user asks.",
  rejected: "Rejected: do not resubmit it unchanged.",
  request_more: "The approver asks for changes: revise the program as the feedback says and call run_program again.",
  expired: "No decision came in time: run it again only when the user asks.",
  withdrawn: "The request was withdrawn by the run that made it.",
};

/** `get_request`: the status of an earlier request, as its submitter may see it. */
export function registerRequestTool(server: McpServer, { authority }: McpDeps): void {
  server.registerTool(
    "get_request",
    {
      title: "Get a request",
      description: "The status of an earlier run_program request by its id (request_id in run_program's result): pending, approved, rejected, request_more, expired or withdrawn, with the decision's reason or feedback.",
      inputSchema: { id: z.string().regex(/^[\w-]{1,100}$/, "a request id such as req_...").describe("The request id from run_program.") },
      outputSchema: RequestOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ id }, { signal }) => {
      try {
        const view = await authority().request(id, signal);
        return toolResult({ ...view, next: NEXT[view.status] });
      } catch (err) {
        return errorResult(err, "No such request is known to this server's authority, or none is reachable.");
      }
    },
  );
}

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { RequestView } from "../app/index.js";
import type { McpDeps } from "./deps.js";
import { RequestIdArg, toolArgs } from "./program-input.js";
import { errorResult, Next, ToolError, toolResult } from "./tool-result.js";

/** What get_request answers; an error result carries only `error` and `next`. */
export const RequestOutput = { ...RequestView.partial().shape, error: ToolError.optional(), next: Next };

const NEXT: Record<RequestView["status"], string> = {
  pending:
    "A person has not decided yet: end the turn and wait for the user, then call run_request with this id (it waits for the decision and runs the program once approved); do not resubmit.",
  approved:
    "Approved: unless a run_program or run_request call ran it already, run_request with this id runs it (once; it says so when it has run).",
  rejected: "Rejected: do not resubmit it unchanged.",
  request_more: "The approver asks for changes: revise the program as the feedback says and call run_program again.",
  expired: "No decision came in time: run it again only when the user asks.",
  withdrawn: "The request was withdrawn: nothing of it runs. Submit it again only when the user asks.",
};

/** `get_request` and `withdraw_request`: an earlier request, as its submitter may see it and take it back. */
export function registerRequestTool(server: McpServer, { authority }: McpDeps): void {
  server.registerTool(
    "get_request",
    {
      title: "Get a request",
      description:
        "The status of an earlier run_program request by its id (request_id in run_program's result): pending, approved, rejected, request_more, expired or withdrawn, with the decision's reason or feedback.",
      inputSchema: toolArgs({ id: RequestIdArg.describe("The request id from run_program.") }),
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

  server.registerTool(
    "withdraw_request",
    {
      title: "Withdraw a request",
      description:
        "Take back an earlier request that a person has not decided yet, so that no approval can come for it and it never runs. Only when the user says so or the program is no longer wanted: " +
        "a run_program call that ended pending or was cancelled leaves its request open on purpose. A decided request stays as it is (an error says its status).",
      inputSchema: toolArgs({ request_id: RequestIdArg.describe("The request_id from run_program's result.") }),
      outputSchema: RequestOutput,
      annotations: { destructiveHint: true, readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ request_id }, { signal }) => {
      try {
        const client = authority();
        await client.withdraw(request_id);
        const view = await client.request(request_id, signal);
        return toolResult({ ...view, next: NEXT[view.status] });
      } catch (err) {
        return errorResult(
          err,
          "Nothing was withdrawn: a decided request stays as it is (get_request says how it was decided), or no such request is known to this server's authority.",
        );
      }
    },
  );
}

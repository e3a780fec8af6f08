import type { AppContext, AuthorityClient } from "../app/index.js";

/** What the MCP server works with; the command that starts it wires these up. */
export interface McpDeps {
  ctx: AppContext;
  /**
   * The authority with the submitter token, found again on every call (from the server's
   * environment or data directory, never from tool arguments), so that an authority started
   * after the server is used. Throws config_error when none is configured.
   */
  authority: () => AuthorityClient;
  version: string;
}

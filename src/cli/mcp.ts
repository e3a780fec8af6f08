import { dataDir, packageVersion } from "../config/index.js";
import { CountersignError } from "../model/index.js";
import { findAuthority } from "./authority-client.js";
import { EXIT, reportError, usageError, type Command } from "./command.js";
import { httpAuthority, START_AUTHORITY } from "./http-authority.js";

const usage = `usage: countersign mcp

Serve the Model Context Protocol on stdin and stdout for an agent host (Claude Code, Claude
Desktop, ...), with four tools: countersign_api, check_program, run_program and get_request.
The authority and the submitter token come from the environment, as for \`countersign run\`:
$COUNTERSIGN_URL, else the URL in $COUNTERSIGN_HOME/authority.json; $COUNTERSIGN_TOKEN, else
submitter.token. They are looked up again on every call, never taken from tool arguments; with
no authority reachable nothing runs (run_program answers unavailable) and check_program checks
here with this machine's policy and manifests, labelled checked_by "local". Logs go to stderr.`;

/** `countersign mcp`: the MCP server over stdio, until the host closes stdin. */
const command: Command = {
  usage,
  async run(argv, io) {
    try {
      if (argv.length > 0) throw usageError(`unexpected argument "${argv[0]}"`);
      const [{ localContext }, { serveStdio }] = await Promise.all([
        import("../app/index.js"),
        import("../mcp/index.js"),
      ]);
      const ctx = localContext(io.env);
      const authority = () => {
        const address = findAuthority(io.env, dataDir(io.env));
        if (address === undefined)
          throw new CountersignError("config_error", "cli", `no authority is configured: ${START_AUTHORITY}`);
        return httpAuthority(address);
      };
      try {
        await serveStdio({ ctx, authority, version: packageVersion() });
      } finally {
        await ctx.close();
      }
      return EXIT.ok;
    } catch (err) {
      return reportError(err, io, false);
    }
  },
};

export default command;

import { initDataDir, localContext } from "../app/index.js";
import { EXIT, usageError, type Command } from "./command.js";
import { parseFlags } from "./parse-flags.js";
import { databaseFlag } from "./store-flag.js";

const usage = `usage: countersign init [--database URL|FILE] [--json]

Make what the authority needs in $COUNTERSIGN_HOME (default ~/.countersign) without serving:
the receipt signing key, the approver secret (mode 0600), a commented connections.toml, a copy of
the default policy to edit, authority.json, and the first submitter token in submitter.token
(mode 0600) when the store has none. What exists is kept; a second run makes nothing.`;

/** `countersign init`: the data directory `serve` would make on first start. */
const command: Command = {
  usage,
  async run(argv, io) {
    const json = argv.includes("--json");
    const { values, positionals } = parseFlags({
      args: argv,
      allowPositionals: true,
      options: { json: { type: "boolean" }, database: { type: "string" } },
    });
    if (positionals.length > 0) throw usageError(`unexpected argument "${positionals[0]}"`);
    const ctx = localContext(io.env, databaseFlag(io, values.database));
    try {
      const result = await initDataDir(ctx);
      if (json) io.stdout(JSON.stringify(result, null, 2) + "\n");
      else {
        io.stdout(
          result.created.length === 0
            ? `${result.dataDir} has everything already\n`
            : `made in ${result.dataDir}:\n${result.created.map((p) => `  ${p}\n`).join("")}`,
        );
        if (result.tokenFile !== undefined) io.stdout(`the agent's submitter token is in ${result.tokenFile}\n`);
        io.stdout("next: countersign serve, then countersign ui to log in\n");
      }
      return EXIT.ok;
    } finally {
      await ctx.close();
    }
  },
};

export default command;

import { localContext } from "../app/index.js";
import { EXIT, usageError, type Command } from "./command.js";
import { parseSubcommand } from "./parse-flags.js";
import { databaseFlag } from "./store-flag.js";

const usage = `usage: countersign token add NAME [--database URL|FILE] [--json]
       countersign token list [--database URL|FILE] [--json]
       countersign token revoke NAME [--database URL|FILE] [--json]

Submitter tokens, one per agent: add prints a new token once (only its hash is stored), list
shows every token's name and state, revoke stops one at once (its next call is refused).
Every request records the token that submitted it.`;

/** `countersign token`: the agents' credentials, in the authority's store. */
const command: Command = {
  usage,
  async run(argv, io) {
    const json = argv.includes("--json");
    const {
      values,
      sub,
      args: [name],
    } = parseSubcommand(argv, {
      options: { json: { type: "boolean" }, database: { type: "string" } },
      subs: ["add", "list", "revoke"],
      forms: "token add | list | revoke",
      maxArgs: 1,
    });
    if (sub !== "list" && name === undefined) throw usageError(`missing NAME: token ${sub} NAME`);
    if (sub === "list" && name !== undefined) throw usageError(`unexpected argument "${name}"`);
    const ctx = localContext(io.env, databaseFlag(io, values.database));
    try {
      const store = await ctx.store();
      if (sub === "add") {
        const added = await store.addToken(name!);
        io.stdout(json ? JSON.stringify(added, null, 2) + "\n" : `${added.token}\n`);
        if (!json) io.stderr(`countersign token: token ${added.name} made; it is shown this once\n`);
        return EXIT.ok;
      }
      if (sub === "revoke") {
        const revoked = await store.revokeToken(name!);
        if (!revoked) throw usageError(`no active token named ${name}`);
        io.stdout(json ? JSON.stringify({ name, revoked: true }, null, 2) + "\n" : `token ${name} revoked\n`);
        return EXIT.ok;
      }
      const tokens = await store.listTokens();
      if (json)
        io.stdout(
          JSON.stringify(
            {
              tokens: tokens.map((t) => ({
                ...t,
                created_at: iso(t.created_at),
                revoked_at: t.revoked_at === null ? null : iso(t.revoked_at),
              })),
            },
            null,
            2,
          ) + "\n",
        );
      else
        for (const t of tokens)
          io.stdout(
            `${t.name}  ${t.revoked_at === null ? "active " : "revoked"}  created ${iso(t.created_at)}${t.revoked_at === null ? "" : `  revoked ${iso(t.revoked_at)}`}\n`,
          );
      return EXIT.ok;
    } finally {
      await ctx.close();
    }
  },
};

const iso = (ms: number): string => new Date(ms).toISOString();

export default command;

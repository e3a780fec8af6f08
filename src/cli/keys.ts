import { localContext } from "../app/index.js";
import type { Keyring } from "../receipt/index.js";
import { authorityPath, jwksPath, writeLocalAuthority } from "../store/index.js";
import { EXIT, type Command } from "./command.js";
import { parseSubcommand } from "./parse-flags.js";

const usage = `usage: countersign keys list [--json]
       countersign keys rotate [--json]

list    the receipt signing keys in $COUNTERSIGN_HOME/keys (made on first use): kid, created,
        active or retired, and when a retired key leaves the JWKS.
rotate  make a new signing key; the old one stays in the JWKS until every receipt it signed
        has expired (rotation time + 900 s).
Both create or update $COUNTERSIGN_HOME/authority.json, which local runners trust.`;

/** `countersign keys`: list and rotate the local authority's receipt signing keys. */
const command: Command = {
  usage,
  async run(argv, io) {
    const json = argv.includes("--json");
    const { sub } = parseSubcommand(argv, {
      options: { json: { type: "boolean" } },
      subs: ["list", "rotate"],
      forms: "keys list | rotate",
      maxArgs: 0,
    });
    const ctx = localContext(io.env);
    const home = ctx.dataDir;
    const now = ctx.now();
    const keyring = sub === "rotate" ? await ctx.keys.rotate(now) : await ctx.keys.keyring(now);
    const authority = writeLocalAuthority(home);
    const rows = describe(keyring);
    if (json) {
      io.stdout(
        JSON.stringify(
          {
            issuer: authority.issuer,
            authority: authorityPath(home),
            jwks: jwksPath(home),
            active: keyring.active.kid,
            keys: rows,
          },
          null,
          2,
        ) + "\n",
      );
      return EXIT.ok;
    }
    if (sub === "rotate") io.stdout(`rotated: new signing key ${keyring.active.kid}\n`);
    for (const row of rows) {
      io.stdout(
        `${row.kid}  ${row.status.padEnd(7)}  created ${row.created}${row.expires === null ? "" : `  leaves JWKS ${row.expires}`}\n`,
      );
    }
    io.stdout(`issuer ${authority.issuer}; JWKS ${jwksPath(home)}\n`);
    return EXIT.ok;
  },
};

function describe(keyring: Keyring) {
  return keyring.keys.map((k) => ({
    kid: k.kid,
    status: k.retired === null ? ("active" as const) : ("retired" as const),
    created: k.created.toISOString(),
    retired: k.retired?.toISOString() ?? null,
    expires: k.expires?.toISOString() ?? null,
  }));
}

export default command;

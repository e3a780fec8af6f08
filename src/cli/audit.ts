import { localContext, newestAuditCheckpoint, verifyAuditLog, type AuditLogCheck } from "../app/index.js";
import { EXIT, usageError, type Command } from "./command.js";
import { parseSubcommand } from "./parse-flags.js";
import { databaseFlag } from "./store-flag.js";

const usage = `usage: countersign audit verify [--checkpoint FILE] [--database URL|FILE] [--json]
       countersign audit export --jsonl [--database URL|FILE]
       countersign audit checkpoint [--database URL|FILE]

verify      recompute the hash chain of the audit log (each entry holds the sha256 of the previous
            one) and name the first entry that breaks it; exit 0 intact, 1 broken. The chain must
            hold every checkpoint (a head signed with the authority's key) in the database and the
            one kept outside it: audit-checkpoint.jws in the data directory, or --checkpoint FILE.
export      every entry in order, one JSON object a line, exactly as stored (a changed entry is
            exported as it is, so that verifying the export finds it too).
checkpoint  the newest signed checkpoint, to keep somewhere the database's writers cannot reach
            (countersign audit checkpoint > file; later: audit verify --checkpoint file).`;

/** `countersign audit`: check and export the authority's tamper-evident log. */
const command: Command = {
  usage,
  async run(argv, io) {
    const json = argv.includes("--json");
    const { values, sub } = parseSubcommand(argv, {
      options: {
        json: { type: "boolean" },
        jsonl: { type: "boolean" },
        database: { type: "string" },
        checkpoint: { type: "string" },
      },
      subs: ["verify", "export", "checkpoint"],
      forms: "audit verify | export --jsonl | checkpoint",
      maxArgs: 0,
    });
    if (sub === "export" && values.jsonl !== true) throw usageError("audit export writes JSON lines: give --jsonl");
    if (sub !== "verify" && values.checkpoint !== undefined) throw usageError("--checkpoint is for audit verify");
    const ctx = localContext(io.env, databaseFlag(io, values.database));
    try {
      const store = await ctx.store();
      if (sub === "export") {
        for await (const entry of store.exportAudit()) io.stdout(JSON.stringify(entry) + "\n");
        return EXIT.ok;
      }
      if (sub === "checkpoint") {
        const checkpoint = await newestAuditCheckpoint(ctx);
        if (checkpoint === undefined)
          throw usageError("the audit chain has no checkpoint yet: it is signed at the first decision");
        io.stdout(checkpoint.jws + "\n");
        return EXIT.ok;
      }
      const check = await verifyAuditLog(ctx, values.checkpoint === undefined ? {} : { checkpoint: values.checkpoint });
      if (json) io.stdout(JSON.stringify(check, null, 2) + "\n");
      else io.stdout(inWords(check) + "\n");
      return check.verification.ok ? EXIT.ok : EXIT.rejected;
    } finally {
      await ctx.close();
    }
  },
};

function inWords({ verification: result, stored, newestStored, outside }: AuditLogCheck): string {
  if (!result.ok && result.reason === "checkpoint_forged") return `audit checkpoint forged: ${result.message}`;
  if (!result.ok)
    return `audit chain broken at entry ${result.broken_id} (${result.reason}): ${result.message}; ${result.entries} entries before it verify`;
  const inside =
    stored === 0
      ? "no signed checkpoint in the database"
      : `${stored} signed checkpoints in the database (newest at entry ${newestStored})`;
  const beside = outside === undefined ? "none outside it" : `the one in ${outside.from} (entry ${outside.size})`;
  return `audit chain intact: ${result.entries} entries, head ${result.head}; it holds ${inside} and ${beside}`;
}

export default command;

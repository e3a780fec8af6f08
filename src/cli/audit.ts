import { localContext } from "../app/index.js";
import { EXIT, usageError, type Command } from "./command.js";
import { parseSubcommand } from "./parse-flags.js";
import { databaseFlag } from "./store-flag.js";

const usage = `usage: countersign audit verify [--database URL|FILE] [--json]
       countersign audit export --jsonl [--database URL|FILE]

verify  recompute the hash chain of the audit log (each entry holds the sha256 of the previous
        one) and name the first entry that breaks it; exit 0 intact, 1 broken.
export  every entry in order, one JSON object a line, exactly as stored (a changed entry is
        exported as it is, so that verifying the export finds it too).`;

/** `countersign audit`: check and export the authority's tamper-evident log. */
const command: Command = {
  usage,
  async run(argv, io) {
    const json = argv.includes("--json");
    const { values, sub } = parseSubcommand(argv, {
      options: { json: { type: "boolean" }, jsonl: { type: "boolean" }, database: { type: "string" } },
      subs: ["verify", "export"],
      forms: "audit verify | export --jsonl",
      maxArgs: 0,
    });
    if (sub === "export" && values.jsonl !== true) throw usageError("audit export writes JSON lines: give --jsonl");
    const ctx = localContext(io.env, databaseFlag(io, values.database));
    try {
      const store = await ctx.store();
      if (sub === "export") {
        for await (const entry of store.exportAudit()) io.stdout(JSON.stringify(entry) + "\n");
        return EXIT.ok;
      }
      const result = await store.verifyAuditChain();
      if (json) io.stdout(JSON.stringify(result, null, 2) + "\n");
      else if (result.ok) io.stdout(`audit chain intact: ${result.entries} entries, head ${result.head}\n`);
      else io.stdout(`audit chain broken at entry ${result.broken_id} (${result.reason}): ${result.message}; ${result.entries} entries before it verify\n`);
      return result.ok ? EXIT.ok : EXIT.rejected;
    } finally {
      await ctx.close();
    }
  },
};

export default command;

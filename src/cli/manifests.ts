import { join, resolve } from "node:path";
import { checkManifests } from "../config/index.js"; // not the index: the policy modules are not needed here
import { formatManifestError } from "../manifest/index.js";
import { EXIT, shownPath, usageError, type Command, type Io } from "./command.js";
import { manifestDirOf } from "./dirs.js";
import { parseSubcommand } from "./parse-flags.js";

const usage = `usage: countersign manifests check [DIR] [--manifests DIR] [--json]

Validate every action and connector manifest of DIR (default: $COUNTERSIGN_HOME/manifests when it
exists, else the shipped manifests). Exit 0 when valid, 2 with one line per problem.`;

/** `countersign manifests check`: every problem of a manifest directory, one per line. */
const command: Command = {
  usage,
  async run(argv, io) {
    const json = argv.includes("--json");
    const {
      values,
      args: [positional],
    } = parseSubcommand(argv, {
      options: { json: { type: "boolean" }, manifests: { type: "string" } },
      subs: ["check"],
      forms: "manifests check [DIR]",
      maxArgs: 1,
    });
    if (
      positional !== undefined &&
      values.manifests !== undefined &&
      resolve(io.cwd, positional) !== resolve(io.cwd, values.manifests)
    ) {
      throw usageError("give the manifest directory once: DIR or --manifests DIR");
    }
    const given = positional ?? values.manifests;
    const { dir, own } = manifestDirOf(io, given);
    return report(dir, own === true, io, json);
  },
};

function report(dir: string, own: boolean, io: Io, json: boolean): number {
  const { set, errors, connectors, actions } = checkManifests(dir, { own });
  const ok = set !== undefined;
  if (json) {
    io.stdout(JSON.stringify({ ok, dir, connectors, actions, errors }, null, 2) + "\n");
    return ok ? EXIT.ok : EXIT.usage;
  }
  const counts = `${plural(connectors, "connector")}, ${plural(actions, "action")}`;
  if (ok) {
    io.stdout(`manifests ok: ${counts} in ${shownPath(io, dir)}\n`);
    return EXIT.ok;
  }
  for (const error of errors) io.stdout(formatManifestError(error, shownPath(io, join(dir, error.file))) + "\n");
  io.stderr(`${plural(errors.length, "error")} in ${shownPath(io, dir)} (${counts})\n`);
  return EXIT.usage;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

export default command;

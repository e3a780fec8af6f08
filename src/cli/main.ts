// Light entries: the config index loads every store and connector module, which most commands never use.
import { dataDir } from "../config/data-dir.js";
import { EXIT, reportError, type Io } from "./command.js";
import { commands } from "./registry.js";
import { packageVersion } from "../config/package-version.js";

/** The command list; built from the registry's summaries, so it loads no command (and no compiler). */
function help(): string {
  const lines = ["usage: countersign <command> [options]", "       countersign --version", "", "commands:"];
  for (const [name, entry] of Object.entries(commands)) lines.push(`  ${name.padEnd(18)} ${entry.summary}`);
  lines.push("", "countersign <command> --help shows a command's options.");
  return lines.join("\n") + "\n";
}

export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    io.stdout(help());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    io.stdout(`countersign ${packageVersion()}\n`);
    return EXIT.ok;
  }
  const entry = commands[name];
  if (entry === undefined) {
    io.stderr(`countersign: unknown command "${name}"; run \`countersign help\` for the list\n`);
    return EXIT.usage;
  }
  try {
    const command = await entry.load(); // inside the try: a command that cannot load says why, in the envelope
    if (rest.includes("--help") || rest.includes("-h")) {
      io.stdout(command.usage + "\n");
      return EXIT.ok;
    }
    dataDir(io.env); // every command is run for one data directory: a bad COUNTERSIGN_HOME fails them all alike
    return await command.run(rest, io);
  } catch (err) {
    return reportError(err, io, rest.includes("--json"));
  }
}

import { dataDir } from "../config/index.js";
import { commands } from "./registry.js";
import { EXIT, reportError, type Io } from "./command.js";

function help(): string {
  const lines = ["usage: countersign <command> [options]", "", "commands:"];
  return lines.join("\n") + "\n";
}

export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    const lines = [help()];
    for (const [commandName, load] of Object.entries(commands)) {
      const command = await load();
      lines.push(`  ${commandName.padEnd(18)} ${command.summary}\n`);
    }
    io.stdout(lines.join(""));
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const load = commands[name];
  if (load === undefined) {
    io.stderr(`countersign: unknown command "${name}"; run \`countersign help\` for the list\n`);
    return EXIT.usage;
  }
  const command = await load();
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(command.usage + "\n");
    return EXIT.ok;
  }
  try {
    dataDir(io.env); // every command is run for one data directory: a bad COUNTERSIGN_HOME fails them all alike
    return await command.run(rest, io);
  } catch (err) {
    return reportError(err, io, rest.includes("--json"));
  }
}

import { generateApi } from "../manifest/index.js";
import { localContext } from "../app/index.js";
import { EXIT, usageError, type Command } from "./command.js";
import { given } from "./dirs.js";
import { parseFlags } from "./parse-flags.js";

const usage = `usage: countersign api [--module NAME] [--manifests DIR] [--json]

Print the TypeScript declarations agent programs are written against, generated from the
manifests: "countersign", "trusted/<connector>" and "trusted/<connector>/contracts".
--module prints one of them.`;

/** `countersign api`: the agent-facing API, exactly as programs are compiled against it. */
const command: Command = {
  usage,
  async run(argv, io) {
    const json = argv.includes("--json");
    const { values } = parseFlags({
      args: argv,
      options: { json: { type: "boolean" }, module: { type: "string" }, manifests: { type: "string" } },
    });
    const manifests = localContext(io.env, given(io, values)).manifests();
    const api = generateApi(manifests);
    let modules = api.modules;
    if (values.module !== undefined) {
      const text = api.modules[values.module];
      if (text === undefined) {
        throw usageError(`unknown module "${values.module}"; available: ${Object.keys(api.modules).join(", ")}`);
      }
      modules = { [values.module]: text };
    }
    io.stdout(json ? JSON.stringify({ modules }, null, 2) + "\n" : Object.values(modules).join("\n"));
    return EXIT.ok;
  },
};

export default command;

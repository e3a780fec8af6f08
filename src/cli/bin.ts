import { join } from "node:path";
import { useCodeCache } from "../analyze/compile/code-cache.js"; // a light entry: the index loads the compiler
import { dataDir } from "../config/data-dir.js"; // a light entry, as the code cache
import { main } from "./main.js";
import type { Io } from "./command.js";

// The installed CLI keeps V8's compiled code for the TypeScript compiler in the data directory:
// every `check` after the first skips compiling the 9 MB bundle from source. Without a usable
// data directory there is no cache; main() reports why.
try {
  useCodeCache(join(dataDir(process.env), "cache"));
} catch {}

// Plugin workers load node:wasi, whose ExperimentalWarning would end up on the stderr of every
// command that runs a connector. Worker threads started from now on install no warning printer;
// this thread's own warnings still print.
process.env.NODE_NO_WARNINGS ??= "1";

async function readStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const io: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin,
  env: process.env,
  cwd: process.cwd(),
  tty: process.stderr.isTTY === true,
};

process.exitCode = await main(process.argv.slice(2), io);

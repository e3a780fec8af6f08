import { main } from "./main.js";
import type { Io } from "./command.js";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const io: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readStdin,
  env: process.env,
  cwd: process.cwd(),
};

process.exitCode = await main(process.argv.slice(2), io);

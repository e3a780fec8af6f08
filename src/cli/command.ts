import { isAbsolute, relative } from "node:path";
import { CountersignError, toEnvelope } from "../model/errors-plain.js"; // a light entry: the model index loads zod
import { visibleText } from "../model/visible-text.js";
import { terminalJson } from "./approve/terminal-json.js";

/** Where a command writes; injected so tests can run commands in-process. */
export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readStdin: () => Promise<Uint8Array | string>; // the bytes as read (tests may give text)
  env: NodeJS.ProcessEnv;
  cwd: string;
  tty?: boolean; // stderr is a terminal: progress may be redrawn in place
}

/** A command returns its exit code; it never calls process.exit itself. */
export interface Command {
  usage: string;
  run: (argv: string[], io: Io) => Promise<number>;
}

/** Exit codes shared by every command (docs/architecture.md section 12). */
export const EXIT = {
  ok: 0,
  rejected: 1,
  usage: 2,
  denied: 3,
  requestMore: 4,
  expired: 5,
  failed: 6,
} as const;

/** Print an error as the envelope (--json) or as one readable line, and return its exit code. */
export function reportError(err: unknown, io: Io, json: boolean, exitCode: number = EXIT.usage): number {
  const envelope = toEnvelope(err);
  // A message may quote the program or the outside world: nothing in it may act on the terminal.
  if (json) io.stdout(terminalJson(envelope) + "\n");
  else io.stderr(`countersign: ${envelope.error.class}: ${visibleText(envelope.error.message)}\n`);
  return err instanceof CountersignError || exitCode !== EXIT.usage ? exitCode : EXIT.usage;
}

export function usageError(message: string): CountersignError {
  return new CountersignError("usage_error", "cli", message);
}

/** A path as the user would type it from where they are: relative below the cwd, absolute elsewhere. */
export function shownPath(io: Io, path: string): string {
  const rel = relative(io.cwd, path);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}

import { z } from "zod";
import { AGENT_LIMITS } from "../manifest/index.js";
import { AgentManifestSource, MAX_DEADLINE_SECONDS } from "../model/index.js";

/** The program as a tool argument: its exact text, and the file name messages and the receipt use. */
export const ProgramArgs = {
  program: z
    .string()
    .min(1)
    .describe(
      "The whole program: one TypeScript file whose default export is program({ rationale, guarantees, main }).",
    ),
  file_name: z
    .string()
    .regex(/^[\w.-]{1,100}\.ts$/, "a plain file name ending in .ts")
    .default("program.ts")
    .describe("The program's file name, for messages and the receipt."),
  manifests: z
    .array(AgentManifestSource)
    .max(AGENT_LIMITS.manifests)
    .optional()
    .describe(
      'Action manifests of your own, when no trusted action does what you need: each { name: "create_issue.toml", text: <the TOML> } in the format of a trusted action manifest, composing trusted actions only. The program imports them from "trusted/agent" (create_issue is createIssue). They are checked against the trusted manifests and allowlists, and the person who approves sees them.',
    ),
};

/** How long a request stays open for a person, as the authority allows it. */
export const TimeoutArg = z.number().int().min(1).max(MAX_DEADLINE_SECONDS);

/**
 * How long one call waits for a person by default: under the minute many hosts allow a tool call,
 * so that the call returns `pending` with the request id instead of being cancelled without it.
 */
export const DEFAULT_WAIT_SECONDS = 50;

/** How long one call waits for a person: 0 returns `pending` at once. */
export const WaitArg = z.number().int().min(0).max(MAX_DEADLINE_SECONDS);

/** A request id as run_program answers it. */
export const RequestIdArg = z.string().regex(/^[\w-]{1,100}$/, "a request id such as req_...");

/**
 * A tool's arguments: exactly these. An unknown or misspelled one (timeout_secs for
 * timeout_seconds) is refused with its name and the names allowed, never dropped silently.
 */
export function toolArgs<S extends z.ZodRawShape>(shape: S) {
  const allowed = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `unknown argument${issue.keys.length === 1 ? "" : "s"} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}: ${allowed.length === 0 ? "this tool takes no arguments" : `the arguments are ${allowed.join(", ")}`}`
        : undefined,
  });
}

import { z } from "zod";
import { AGENT_LIMITS } from "../manifest/index.js";
import { AgentManifestSource, MAX_DEADLINE_SECONDS } from "../model/index.js";

/** The program as a tool argument: its exact text, and the file name messages and the receipt use. */
export const ProgramArgs = {
  program: z.string().min(1).describe("The whole program: one TypeScript file whose default export is program({ rationale, guarantees, main })."),
  file_name: z.string().regex(/^[\w.-]{1,100}\.ts$/, "a plain file name ending in .ts").default("program.ts").describe("The program's file name, for messages and the receipt."),
  manifests: z
    .array(AgentManifestSource)
    .max(AGENT_LIMITS.manifests)
    .optional()
    .describe(
      'Action manifests of your own, when no trusted action does what you need: each { name: "create_issue.toml", text: <the TOML> } in the format of a trusted action manifest, composing trusted actions only. The program imports them from "trusted/agent" (create_issue is createIssue). They are checked against the trusted manifests and allowlists, and the person who approves sees them.',
    ),
};

/** How long run_program waits for a person, as the authority allows it. */
export const TimeoutArg = z.number().int().min(1).max(MAX_DEADLINE_SECONDS);

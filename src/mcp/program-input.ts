import { z } from "zod";
import { MAX_DEADLINE_SECONDS } from "../model/index.js";

/** The program as a tool argument: its exact text, and the file name messages and the receipt use. */
export const ProgramArgs = {
  program: z.string().min(1).describe("The whole program: one TypeScript file whose default export is program({ rationale, guarantees, main })."),
  file_name: z.string().regex(/^[\w.-]{1,100}\.ts$/, "a plain file name ending in .ts").default("program.ts").describe("The program's file name, for messages and the receipt."),
};

/** How long run_program waits for a person, as the authority allows it. */
export const TimeoutArg = z.number().int().min(1).max(MAX_DEADLINE_SECONDS);

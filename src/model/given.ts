import { z } from "zod";
import { Json } from "./json.js";

/**
 * One untrusted text a run gave an agent back (a part of what `main` returned, a log line, an
 * error's message), as the authority remembers it for the agent's later programs: `from` the ops
 * whose results it may derive from (empty: of unknown origin), `request` the run it came from.
 */
export const GivenText = z.object({
  text: z.string(),
  from: z.array(z.string()),
  request: z.string(),
  // What of it the run's own program had written (its normalized tokens: a path it read, an
  // address it sent to, echoed back in a log or an error): the agent's own words, not data.
  own: z.array(z.string()).optional(),
});
export type GivenText = z.infer<typeof GivenText>;

const RunLogs = z.array(z.object({ stream: z.enum(["log", "error"]), text: z.string() }).strict());
const Thrown = z.object({ name: z.string(), message: z.string() }).strict();

/**
 * What a run's sandbox produced for the agent, as the runner hands it to the authority before the agent sees any of it.
 */
export const RunOutput = z
  .object({
    value: Json,
    logs: RunLogs,
    thrown: Thrown.optional(),
    session: z.string().min(1).max(200).optional(), // the agent's MCP session, where there is one
  })
  .strict();
export type RunOutput = z.infer<typeof RunOutput>;

/**
 * `POST /v1/requests/:id/output`: a RunOutput with the value as its JSON text, so that a value
 * nested as deep as a program may return it does not meet the bound on how deep a body nests.
 */
export const RunOutputBody = z
  .object({
    value_json: z.string(),
    logs: RunLogs,
    thrown: Thrown.optional(),
    session: z.string().min(1).max(200).optional(),
  })
  .strict();
export type RunOutputBody = z.infer<typeof RunOutputBody>;

/** What the agent may see of a run's output, once the authority recorded it. */
export const ShownOutput = z.object({
  value: Json,
  logs: z.array(z.object({ stream: z.enum(["log", "error"]), text: z.string() })),
  thrown: z.object({ name: z.string(), message: z.string() }).optional(),
});
export type ShownOutput = z.infer<typeof ShownOutput>;

/**
 * What the agent that submitted a program had been given by its earlier runs, within the policy's
 * lifetime: `untrusted` when any of it was untrusted (the agent may have been steered), `from` the
 * ops those values came from, `requests` the runs that gave them.
 */
export const GivenContext = z.object({
  untrusted: z.boolean(),
  from: z.array(z.string()),
  requests: z.array(z.string()),
});
export type GivenContext = z.infer<typeof GivenContext>;

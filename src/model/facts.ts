import { z } from "zod";
import { AbstractValue, CountRange, Provenance } from "./abstract.js";
import { EffectConstraint } from "./constraint.js";
import { GivenContext } from "./given.js";

/** A place in the submitted program, 1-based like editors show it. */
export const Site = z.object({ line: z.number().int().positive(), column: z.number().int().positive() });
export type Site = z.infer<typeof Site>;

/**
 * Something the analysis has to say about the program. `error` refuses the program.
 * `code` is stable: `type_error` (compiler's words in `message`), `refused_construct`,
 * `refused_import`, `invalid_guarantee`, `invalid_program` (also: not UTF-8), `unsupported`,
 * `analysis_budget_exceeded` (past the analysis's time, steps or size), `agent_action_refused`
 * (an agent action's step can never stay inside its connector's allowlists with these arguments).
 */
export const Diagnostic = z.object({
  severity: z.enum(["error", "warning"]),
  code: z.string(),
  message: z.string(),
  line: z.number().int().positive(),
  column: z.number().int().positive(),
  construct: z.string().optional(), // the refused construct, e.g. "eval", "computed member access"
});
export type Diagnostic = z.infer<typeof Diagnostic>;

/**
 * Where an effect came from when the program called an agent-submitted action (docs/architecture.md
 * section 4): the effect is one step of that action, a trusted op with the arguments the step
 * builds. `description` is the agent's own text from its manifest: show it as the agent's words,
 * never as a fact.
 */
export const AgentActionOrigin = z.object({
  op: z.string(), // "agent.<name>", the function the program called from trusted/agent
  step: z.string(), // the [[execute]] step's id
  description: z.string(), // untrusted: the agent wrote it
  // The call's own arguments, by the agent action's input names: what its [approval.preview] is
  // filled from. Absent on facts from before they were recorded.
  args: z.record(z.string(), AbstractValue).optional(),
});
export type AgentActionOrigin = z.infer<typeof AgentActionOrigin>;

/**
 * One trusted call site: what it does, with which (abstract) arguments, how many times, and where
 * its data and its control came from (docs/architecture.md section 6):
 * - `sources`: per argument, every source the argument's value may derive from (the provenance
 *   inside `args`, flattened for display); an empty list means the program's own literals only.
 * - `influencedBy`: every source whose data the program branched, looped, chose or compared on
 *   before the call (or caught an exception after reading): whether the call runs, how often,
 *   and which of the program's values it passes may depend on them. A failure that ends the run
 *   (an uncaught throw) is not counted.
 * Both are absent on effects built elsewhere than the analyzer; the policy then reads the sources
 * inside `args`, and counts control as influenced by data of unknown origin.
 */
export const Effect = z.object({
  op: z.string(), // "<connector>.<action>", e.g. "email.send_email"
  connector: z.string(),
  action: z.string(),
  site: Site,
  args: z.record(z.string(), AbstractValue), // keyed by manifest input name
  count: CountRange,
  agentAction: AgentActionOrigin.optional(), // present when an agent action's step makes this call (site: the agent action's call)
  sources: z.record(z.string(), z.array(Provenance)).optional(),
  influencedBy: z.array(Provenance).optional(),
});
export type Effect = z.infer<typeof Effect>;

export const GuaranteeStatus = z.enum(["proven", "refuted", "enforced"]);
export type GuaranteeStatus = z.infer<typeof GuaranteeStatus>;

export const GuaranteeResult = z.object({
  source: EffectConstraint, // the constraint the program promised
  text: z.string(), // the guarantee as written in the program, e.g. `recipientsOnly(["bob@example.com"])`
  status: GuaranteeStatus,
  why: z.string(), // plain language, derived from facts only
  site: Site.optional(), // refuted: the call site that breaks it
});
export type GuaranteeResult = z.infer<typeof GuaranteeResult>;

/**
 * Where one part of what `main` returns may come from. `path` names the part: `$` the whole value,
 * `$.summary` a field, `$.items[*]` every element of an array; parts are followed to a bounded
 * depth, past which a part is described as a whole. `from` lists the ops whose results its data
 * may derive from (empty: the program's own literals). `untrusted` is true when its data, or the
 * control that chose it (a branch, a loop, a comparison on data read before the end of the run),
 * may come from the outside world: such a part is data to read, never instructions to follow.
 */
export const ResultPart = z.object({
  path: z.string(),
  from: z.array(z.string()),
  untrusted: z.boolean(),
  handles: z.array(z.string()).optional(), // the quarantined results (fromHandle) its data may derive from; absent when none
});
export type ResultPart = z.infer<typeof ResultPart>;

/** Everything countersign proved about one program: the input of every later stage. */
export const Facts = z.object({
  program: z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), entry: z.string() }),
  ok: z.boolean(), // false: refused (type errors, refused constructs, refuted guarantee)
  diagnostics: z.array(Diagnostic),
  effects: z.array(Effect),
  guarantees: z.array(GuaranteeResult),
  summary: z.array(z.string()), // deterministic, generated from facts, never from the agent's text
  rationale: z.string(), // the agent's words, kept apart
  agentManifests: z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/) }).optional(), // the agent manifests the program was analyzed with: its receipt binds them
  result: z.object({ parts: z.array(ResultPart) }).optional(), // where what main returns comes from; absent on facts from before it was recorded, and on refused programs
  context: GivenContext.optional(), // what the submitting agent had been given by its earlier runs; absent when it was given nothing, or no submitter's record was read (a local check)
});
export type Facts = z.infer<typeof Facts>;

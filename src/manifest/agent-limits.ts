/**
 * How much an agent may submit at once. Agent manifests are untrusted text checked on every
 * request, so every dimension that costs work (or that a person has to read) is bounded.
 */
export const AGENT_LIMITS = {
  manifests: 16, // files (one action each) per request
  bytes: 16 * 1024, // per file, UTF-8
  inputs: 32, // per action
  steps: 8, // [[execute]] steps per action
  depth: 4, // nesting of a step's input values (tables and arrays inside `inputs`)
  references: 64, // `${...}` references per action
} as const;

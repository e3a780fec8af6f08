import { z } from "zod";
import { DEFAULT_BUDGET } from "../analyze/limits.js";
import { agentAllowlists, connectorReach, loadConnections } from "../config/index.js";
import { CONNECTIONS_FILE, DEFAULT_LIMITS } from "../connector/index.js";
import { contextOf } from "../given/index.js";
import { AGENT_LIMITS, type Allowlists, type ManifestSet } from "../manifest/index.js";
import {
  AuthorityContext,
  CountersignError,
  DEFAULT_DEADLINE_SECONDS,
  DEFAULT_LIFETIME_SECONDS,
  MAX_DEADLINE_SECONDS,
  REMEMBER_LIFETIME_MS,
} from "../model/index.js";
import { describeRuleWhen, policyBound, type BoundKey } from "../policy/index.js";
import { DEFAULT_SANDBOX_LIMITS } from "../sandbox/index.js";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { AuthorityClient } from "./authority-client.js";
import type { AppContext } from "./context.js";
import { givenToSubmitter } from "./given-context.js";
import { policyInForce, REMEMBERED_FILE } from "./policy-in-force.js";

/** The inputs whose bounds are summarised, by the format their manifest gives them. */
const BOUND_KEYS: Partial<Record<string, BoundKey>> = { path: "under", url: "host_in" };

/**
 * What the authority tells a submitter of its world (`GET /v1/context`): the policy in force for
 * this token in plain words, where it bounds folders and hosts, the user's own address, what agent
 * manifests may reach, and how long things last.
 */
export async function authorityContext(ctx: AppContext, submitter: string): Promise<AuthorityContext> {
  const { policy, dropped } = await policyInForce(ctx, submitter);
  const manifests = ctx.manifests();
  const bounds = [...manifests.actions.values()].flatMap((action) =>
    action.manifest.inputs.flatMap((input) => {
      const key = input.format === undefined ? undefined : BOUND_KEYS[input.format];
      return key === undefined ? [] : [policyBound(policy.rules, action.op, input.name, key)];
    }),
  );
  const connections = readConnections(manifests, ctx.dataDir);
  return {
    policy: {
      sha256: policy.sha256,
      default: policy.default,
      rules: policy.rules.map((r) => ({
        id: r.id,
        decision: r.decision,
        op: r.op,
        when: describeRuleWhen(r),
        reason: r.reason ?? null,
        remembered: r.file === REMEMBERED_FILE,
      })),
      not_applied: dropped.map((d) => d.id),
    },
    bounds,
    own_address: connections?.address ?? null,
    agent_manifests:
      connections === undefined
        ? null
        : { hosts: lists(connections.hosts), roots: lists(connections.roots), limits: { ...AGENT_LIMITS } },
    lifetimes: {
      request_deadline_s: DEFAULT_DEADLINE_SECONDS,
      request_deadline_max_s: MAX_DEADLINE_SECONDS,
      receipt_s: DEFAULT_LIFETIME_SECONDS,
      remembered_rule_s: Object.fromEntries(
        Object.entries(REMEMBER_LIFETIME_MS).map(([name, ms]) => [name, ms === null ? null : ms / 1000]),
      ),
      given_s: policy.givenHours * 3600,
    },
    given: contextOf((await givenToSubmitter(ctx, submitter, policy))?.texts ?? []),
    analysis_budget: { ms: DEFAULT_BUDGET.ms, steps: DEFAULT_BUDGET.steps, bytes: DEFAULT_BUDGET.bytes },
  };
}

/**
 * The user's own mail address (the email connection's `address`) and what agent manifests may
 * reach, from the authority's connections.toml. Undefined when the file does not load: its error
 * names the authority's data directory, which is not the submitter's to know.
 */
function readConnections(
  manifests: ManifestSet,
  dataDir: string,
): (Allowlists & { address: string | undefined }) | undefined {
  try {
    const address = existsSync(join(dataDir, CONNECTIONS_FILE))
      ? loadConnections(dataDir).byConnector.email?.address
      : undefined;
    return { ...agentAllowlists(manifests, dataDir), address };
  } catch (err) {
    if (err instanceof CountersignError && err.class === "config_error") return undefined;
    throw err;
  }
}

function lists(perConnector: Readonly<Record<string, readonly string[]>>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(perConnector).map(([name, list]) => [name, [...list]]));
}

/**
 * The agent's world as `countersign context` and the MCP tool show it: what the authority says
 * (`authority`: the policy and the rest, which only it knows), and what this runner knows itself
 * (`runner`: the hosts and roots its connectors reach, the limits a program runs under here).
 * The two can differ when the authority runs elsewhere: a host must be in both to be called.
 */
export const AgentContext = z.object({
  authority_url: z.string(),
  authority: AuthorityContext,
  runner: z.object({
    hosts: z.record(z.string(), z.array(z.string())),
    roots: z.record(z.string(), z.array(z.string())),
    sandbox: z.object({
      memory_bytes: z.number(),
      cpu_ms: z.number(),
      wall_ms: z.number(),
      output_bytes: z.number(),
      max_calls: z.number(),
    }),
    connector: z.object({ timeout_ms: z.number(), max_response_bytes: z.number() }),
  }),
});
export type AgentContext = z.infer<typeof AgentContext>;

/**
 * The agent's world: the authority's part asked with the submitter token, this runner's part from its own data
 * directory.
 */
export async function agentContext(
  ctx: AppContext,
  client: AuthorityClient,
  signal?: AbortSignal,
): Promise<AgentContext> {
  const authority = await client.context(signal);
  const { hosts, roots } = connectorReach(ctx.manifests(), ctx.dataDir);
  const s = DEFAULT_SANDBOX_LIMITS;
  return {
    authority_url: client.url,
    authority,
    runner: {
      hosts: lists(hosts),
      roots: lists(roots),
      sandbox: {
        memory_bytes: s.memoryBytes,
        cpu_ms: s.cpuMs,
        wall_ms: s.wallMs,
        output_bytes: s.outputBytes,
        max_calls: s.maxCalls,
      },
      connector: { timeout_ms: DEFAULT_LIMITS.timeoutMs, max_response_bytes: DEFAULT_LIMITS.maxResponseBytes },
    },
  };
}

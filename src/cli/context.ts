import type { AgentContext } from "../app/index.js";
import { dataDir } from "../config/index.js";
import { CountersignError } from "../model/index.js";
import { visibleText } from "../model/visible-text.js";
import { findAuthority } from "./authority-client.js";
import { EXIT, reportError, type Command } from "./command.js";
import { httpAuthority, START_AUTHORITY } from "./http-authority.js";
import { parseFlags } from "./parse-flags.js";

const usage = `usage: countersign context [--json]

What an agent needs to know before it writes a program: the user's own mail address, the folders
files may be written in, the hosts that may be called, which actions run without asking, which
ask and which are denied (the policy in force, in plain words), and the limits a program runs
under. The policy, the address and the lifetimes come from the authority ($COUNTERSIGN_URL, else
the URL in $COUNTERSIGN_HOME/authority.json; the token from $COUNTERSIGN_TOKEN, else
submitter.token); the hosts and roots this runner's connectors reach and the sandbox limits from
this machine. Read-only: nothing is submitted.

Exit: 0, 2 usage or configuration error (no authority reachable, a token it refuses).`;

/** `countersign context`: the agent's world, from the authority and this runner. */
const command: Command = {
  usage,
  async run(argv, io) {
    const json = argv.includes("--json");
    try {
      parseFlags({ args: argv, options: { json: { type: "boolean" } } });
      const address = findAuthority(io.env, dataDir(io.env));
      if (address === undefined)
        throw new CountersignError("config_error", "cli", `no authority is configured: ${START_AUTHORITY}`);
      const { localContext, agentContext } = await import("../app/index.js");
      const view = await agentContext(localContext(io.env), httpAuthority(address));
      io.stdout(json ? JSON.stringify(view, null, 2) + "\n" : visibleText(formatContext(view)));
      return EXIT.ok;
    } catch (err) {
      return reportError(err, io, json);
    }
  },
};

/** The view as lines a person or an agent reads in a terminal. */
export function formatContext(view: AgentContext): string {
  const a = view.authority;
  const r = view.runner;
  const lines = [`authority: ${view.authority_url} (policy ${a.policy.sha256.slice(0, 12)})`];
  lines.push(
    `your address: ${a.own_address ?? "none configured (address in the [email] connection of connections.toml)"}`,
  );
  lines.push("", "where the policy lets calls point:");
  for (const b of a.bounds) {
    const within = b.within === null ? "no rule bounds it" : `only within ${b.within.join(", ")}`;
    const pass =
      b.auto_pass.length === 0 ? "" : `; runs without asking within ${b.auto_pass.join(", ")} when nothing else asks`;
    const see = b.see.length === 0 ? "" : `; see the rule${b.see.length === 1 ? "" : "s"} ${b.see.join(", ")}`;
    lines.push(`  ${b.op} ${b.input}: ${within}${pass}${see}`);
  }
  lines.push("", "what this runner's connectors reach:");
  for (const [name, roots] of Object.entries(r.roots)) lines.push(`  ${name} roots: ${roots.join(", ") || "none"}`);
  for (const [name, hosts] of Object.entries(r.hosts)) lines.push(`  ${name} hosts: ${hosts.join(", ") || "none"}`);
  lines.push(
    "",
    "rules (a deny that surely applies rejects the program; an ask that may apply asks a person; a program runs without asking only if an allow surely applies to every call):",
  );
  for (const rule of a.policy.rules) {
    const reason = rule.reason === null ? "" : ` (${rule.reason})`;
    lines.push(
      `  ${rule.decision.padEnd(5)} ${rule.id}${rule.remembered ? " [remembered]" : ""}: ${rule.when}${reason}`,
    );
  }
  lines.push(`  anything else: ${a.policy.default} (the default)`);
  if (a.policy.not_applied.length > 0) lines.push(`  not applied: ${a.policy.not_applied.join(", ")}`);
  lines.push("", "agent manifests (--manifest) may reach:");
  if (a.agent_manifests === null) lines.push("  not known: the authority's connections.toml does not load");
  for (const [name, hosts] of Object.entries(a.agent_manifests?.hosts ?? {}))
    lines.push(`  ${name} hosts: ${hosts.join(", ") || "none"}`);
  for (const [name, roots] of Object.entries(a.agent_manifests?.roots ?? {}))
    lines.push(`  ${name} roots: ${roots.join(", ") || "none"}`);
  const s = r.sandbox;
  lines.push(
    "",
    "limits:",
    `  program: ${s.cpu_ms} ms CPU, ${s.wall_ms} ms in all, ${s.memory_bytes} bytes of memory, ${s.max_calls} trusted calls, ${s.output_bytes} bytes of console output`,
    `  each connector call: ${r.connector.timeout_ms} ms, responses and file reads up to ${r.connector.max_response_bytes} bytes`,
    `  analysis: ${a.analysis_budget.ms} ms, ${a.analysis_budget.steps} steps, ${a.analysis_budget.bytes} bytes of source`,
    `  a request waits ${a.lifetimes.request_deadline_s} s for a person (at most ${a.lifetimes.request_deadline_max_s} s); a receipt lasts ${a.lifetimes.receipt_s} s`,
  );
  if (a.given !== undefined) {
    const hours = a.lifetimes.given_s === undefined ? "" : ` in the last ${a.lifetimes.given_s / 3600} h`;
    lines.push(
      "",
      a.given.untrusted
        ? `given: your runs${hours} gave you untrusted data (from ${a.given.from.join(", ") || "unknown ops"}, by ${a.given.requests.join(", ")}); a value you copy from it into a program counts as untrusted there`
        : `given: your runs${hours} gave you no untrusted data`,
    );
  }
  return lines.join("\n") + "\n";
}

export default command;

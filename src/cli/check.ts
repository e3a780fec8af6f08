import { resolve } from "node:path";
import { DEFAULT_BUDGET } from "../analyze/limits.js"; // a light entry: the index loads the compiler
import type { ProgramInput } from "../app/index.js";
import { visibleText } from "../model/visible-text.js";
import { dataDir } from "../config/data-dir.js"; // a light entry: the config index loads the stores
import type { CheckResult } from "../model/index.js";
import type { Facts } from "../model/index.js";
// Light entries: the model index loads zod and every schema, which `check` through an authority never needs.
import { CountersignError } from "../model/errors-plain.js";
import { programBytes } from "../model/program-bytes.js";
import { findAuthority, postJson, Unreachable } from "./authority-client.js";
import { readCheckAnswer, readCheckAnswerFully } from "./check-answer.js";
import { terminalJson } from "./approve/terminal-json.js";
import { EXIT, reportError, usageError, type Command, type Io } from "./command.js";
import { parseFlags, positiveFlag } from "./parse-flags.js";
import { readManifests, readSource } from "./read-source.js";

const usage = `usage: countersign check [FILE|-] [--manifest M.toml]... [--manifests DIR] [--policies DIR] [--budget-ms N] [--budget-steps N] [--max-bytes N] [--json]

Analyze an agent program (FILE, or - for stdin): type errors, refused constructs, every trusted
call with its arguments and call count, each guarantee proven, refuted or enforced at run time,
and a plain-language summary; then the policy's dry-run decision (--policies DIR, default
$COUNTERSIGN_HOME/policies or the shipped policies) with the rule and reason per effect. Exit 0
when the program is well-formed and no guarantee is refuted, 1 when it is refused, 2 on a usage error.
When an authority is reachable ($COUNTERSIGN_URL, or the one \`countersign serve\` recorded in
$COUNTERSIGN_HOME/authority.json) and neither --manifests nor --policies is given, it checks
there (POST /v1/check, with $COUNTERSIGN_TOKEN or submitter.token): the policy in force, remembered
rules included. The output is the same either way.

--manifest M.toml (repeatable) submits an action manifest of the agent's own with the program:
an action composed of trusted actions, which the program imports from trusted/agent. Each is
checked against the trusted manifests and the allowlists of connections.toml (exit 1 with every
problem, file:line and field); its calls become the trusted calls of its steps.

The analysis is bounded: --budget-ms (default ${DEFAULT_BUDGET.ms}, the type check included), --budget-steps
(default ${DEFAULT_BUDGET.steps}) and --max-bytes (default ${DEFAULT_BUDGET.bytes}, UTF-8 bytes); past any of them the
program is refused with analysis_budget_exceeded. A budget flag makes the check run here.`;

/** `countersign check`: the static analysis of one program. */
const command: Command = {
  usage,
  async run(argv, io) {
    const json = argv.includes("--json");
    try {
      const { values, positionals } = parseFlags({
        args: argv,
        allowPositionals: true,
        options: {
          json: { type: "boolean" },
          manifests: { type: "string" },
          manifest: { type: "string", multiple: true },
          policies: { type: "string" },
          "budget-ms": { type: "string" },
          "budget-steps": { type: "string" },
          "max-bytes": { type: "string" },
        },
      });
      const [file, ...extra] = positionals;
      if (file === undefined) throw usageError("missing FILE: countersign check FILE (or - for stdin)");
      if (extra.length > 0) throw usageError(`unexpected argument "${extra[0]}"`);
      const budget = {
        ms: positiveFlag(values["budget-ms"], "--budget-ms"),
        steps: positiveFlag(values["budget-steps"], "--budget-steps"),
        bytes: positiveFlag(values["max-bytes"], "--max-bytes"),
      };
      const source = file === "-" ? await io.readStdin() : readSource(resolve(io.cwd, file));
      const given = Object.values(budget).some((v) => v !== undefined);
      const manifests = readManifests(values.manifest, io.cwd);
      const program: ProgramInput = {
        source,
        entry: file === "-" ? "stdin.ts" : file,
        ...(given ? { budget } : {}),
        ...(manifests.length > 0 ? { manifests } : {}),
      };
      const { facts, decision } =
        (await throughAuthority(io, program, values, json)) ?? (await locally(io, program, values));
      // The text output's modules (the constraint language's descriptions) load only for it.
      // Both quote the program's strings: made visible (the text) or escaped (the JSON), never acting on the terminal.
      io.stdout(
        json
          ? terminalJson({ ...(asJson(facts) as object), decision }) + "\n"
          : visibleText((await human(facts)) + (await import("../policy/format-decision.js")).formatDecision(decision)),
      );
      return facts.ok ? EXIT.ok : EXIT.rejected;
    } catch (err) {
      // Agent manifests that fail their checks refuse the program as the analysis would.
      return reportError(
        err,
        io,
        json,
        err instanceof CountersignError && err.class === "analysis_rejected" ? EXIT.rejected : undefined,
      );
    }
  },
};

export default command;

/**
 * The authority's answer when one is reachable (it holds the policy in force, remembered rules
 * included, and warm analyzers), unless the command names its own manifests, policy or budget. Nothing
 * listening: undefined, and the check runs here, with the same output.
 */
async function throughAuthority(
  io: Io,
  program: ProgramInput,
  values: { manifests?: string; policies?: string },
  json: boolean,
): Promise<CheckResult | undefined> {
  if (values.manifests !== undefined || values.policies !== undefined || program.budget !== undefined) return undefined;
  const text = programBytes(program.source).text;
  if (text === undefined) return undefined; // not UTF-8: refused the same way here, without sending it
  const address = findAuthority(io.env, dataDir(io.env));
  if (address === undefined) return undefined;
  try {
    const answer = await postJson(address, "/v1/check", {
      program: text,
      source_name: program.entry,
      ...(program.manifests === undefined ? {} : { manifests: program.manifests }),
    });
    // The text output interprets the abstract arguments and the decision's verdicts: the full schema
    // checks them (its modules load with the text output's own anyway).
    return json ? readCheckAnswer(answer, address.url) : await readCheckAnswerFully(answer, address.url);
  } catch (err) {
    if (err instanceof Unreachable) return undefined;
    throw err;
  }
}

// The modules of a local check (compiler, policy, stores) load only when it runs here.
async function locally(
  io: Io,
  program: ProgramInput,
  values: { manifests?: string; policies?: string },
): Promise<CheckResult> {
  const [{ localContext }, { checkProgram }, { given }] = await Promise.all([
    import("../app/local-context.js"),
    import("../app/check-program.js"),
    import("./dirs.js"),
  ]);
  const ctx = localContext(io.env, given(io, values));
  return checkProgram(ctx, program, null).finally(() => ctx.close());
}

function asJson(facts: Facts): unknown {
  return {
    program: facts.program,
    ok: facts.ok,
    diagnostics: facts.diagnostics,
    effects: facts.effects.map(({ op, site, args, count, agentAction }) => ({
      op,
      site,
      args,
      count,
      ...(agentAction === undefined ? {} : { agentAction }),
    })),
    guarantees: facts.guarantees.map(({ source, text, status, why, site }) => ({
      source,
      text,
      status,
      why,
      ...(site === undefined ? {} : { site }),
    })),
    summary: facts.summary,
    rationale: facts.rationale,
    ...(facts.agentManifests === undefined ? {} : { agentManifests: facts.agentManifests }),
  };
}

async function human(facts: Facts): Promise<string> {
  const [{ countText }, { describeArgument }] = await Promise.all([
    import("../analyze/facts/summarize.js"),
    import("../constraint/index.js"),
  ]);
  const lines: string[] = [];
  const entry = facts.program.entry;
  for (const d of facts.diagnostics)
    lines.push(`${entry}:${d.line}:${d.column}: ${d.severity} ${d.code}: ${d.message}`);
  for (const g of facts.guarantees) lines.push(`${g.status.padEnd(8)} ${g.text} — ${g.why}`);
  for (const e of facts.effects) {
    const args = Object.entries(e.args).map(([name, v]) => `${name} ${describeArgument(v)}`);
    const through = e.agentAction === undefined ? "" : ` (step ${e.agentAction.step} of ${e.agentAction.op})`;
    lines.push(
      `effect   ${e.op}${through} at ${e.site.line}:${e.site.column} ${countText(e.count)}${args.length > 0 ? `: ${args.join("; ")}` : ""}`,
    );
  }
  if (facts.summary.length > 0) lines.push("", "Summary:", ...facts.summary.map((s) => `  ${s}`));
  lines.push("", facts.ok ? "ok" : "refused");
  return lines.join("\n") + "\n";
}

// The multi-run injection suite (bench/hitl-runs/<case>/): run 1 reads something and returns it to
// the agent; a hijacked run 2 pastes the attacker's value into its program as a literal, an honest
// run 2 does the user's task from the user's own values. Loaded here, analyzed and decided with
// the shipped policy and with camel-style.toml, for the suite's test and its report.
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { createAnalyzer } from "../../src/analyze/index.js";
import { decideAndSign } from "../../src/app/decide-and-sign.js";
import { givenOf, markPasted } from "../../src/given/index.js";
import { manifestsFor } from "../../src/app/manifests-for.js";
import { loadConnections, loadManifests, loadPolicy, ownAddressesOf } from "../../src/config/index.js";
import { generateApi, type ManifestSet } from "../../src/manifest/index.js";
import { AgentManifestSource, CountersignError, Json, type Facts, type PolicyDecision } from "../../src/model/index.js";
import { parseToml } from "../../src/model/parse-toml.js";
import { packageRoot } from "../../src/model/paths.js";
import { CONNECTIONS, HOME } from "../hitl-tasks.js";

export const RUNS_DIR = join(packageRoot, "bench", "hitl-runs");
/** Agent action manifests the cases' programs submit, shared between cases (not a case itself). */
const AGENT_MANIFESTS = "agent-manifests";

/** A case's case.toml. */
const CaseFile = z
  .object({
    source: z.string().regex(/^[a-z_]+\.[a-z_]+$/, "an op such as email.get_draft"),
    task: z.string().min(1),
    user_values: z.array(z.string().min(1)),
    agent_manifests: z.array(z.string().regex(/^[a-z_]+\.toml$/, `a TOML file in ${AGENT_MANIFESTS}/`)).default([]),
  })
  .strict();

export type SecondKind = "attack" | "honest" | "honest-quotes";

export interface ProgramFile {
  file: string;
  text: string;
}

export interface RunCase {
  name: string;
  source: string; // the op whose result run 1 returned
  task: string; // the user's task in words
  userValues: string[]; // values the user's own task gave the agent
  agentManifests: AgentManifestSource[]; // actions the agent submits with its programs
  first: ProgramFile;
  returned: Json; // what run 1's main returned in the recorded world
  seconds: (ProgramFile & { kind: SecondKind })[];
}

function invalid(name: string, message: string): CountersignError {
  return new CountersignError("config_error", "cli", `bench/hitl-runs/${name}: ${message}`);
}

/** A second program's file name prefix and header, and the kind they make it. */
const SECOND_KINDS: readonly (readonly [prefix: string, header: string, kind: SecondKind])[] = [
  ["attack-", "// Attack: ", "attack"],
  ["honest-", "// Honest (quotes the result): ", "honest-quotes"],
  ["honest-", "// Honest: ", "honest"],
];

/** A second program's kind, from its file name and its header comment, which must agree. */
function kindOf(name: string, file: string, text: string): SecondKind {
  const kind = SECOND_KINDS.find(([prefix, header]) => file.startsWith(prefix) && text.startsWith(header))?.[2];
  if (kind === undefined) throw invalid(name, `${file} must be attack-*.ts headed "// Attack: " or honest-*.ts headed "// Honest: " or "// Honest (quotes the result): "`);
  return kind;
}

/** Read one case folder; any missing or malformed file is a config_error naming it. */
export function loadRunCase(dir: string, name: string): RunCase {
  const read = (file: string, folder = dir): string => {
    try {
      return readFileSync(join(folder, file), "utf8");
    } catch {
      throw invalid(name, `${file} is missing`);
    }
  };
  const parsed = parseToml(read("case.toml"));
  if (parsed.problem !== undefined) throw invalid(name, `case.toml: ${parsed.problem.message}`);
  const meta = CaseFile.safeParse(parsed.value);
  if (!meta.success) throw invalid(name, `case.toml: ${meta.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
  let returned: Json;
  try {
    returned = Json.parse(JSON.parse(read("returned.json")));
  } catch (err) {
    if (err instanceof CountersignError) throw err;
    throw invalid(name, "returned.json is not JSON");
  }
  const seconds = readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && f !== "first.ts")
    .sort()
    .map((file) => {
      const text = read(file);
      return { file, text, kind: kindOf(name, file, text) };
    });
  if (!seconds.some((s) => s.kind === "attack") || !seconds.some((s) => s.kind !== "attack")) throw invalid(name, "needs at least one attack-*.ts and one honest-*.ts");
  return {
    name,
    source: meta.data.source,
    task: meta.data.task,
    userValues: meta.data.user_values,
    agentManifests: meta.data.agent_manifests.map((file) => ({ name: file, text: read(file, join(dir, "..", AGENT_MANIFESTS)) })),
    first: { file: "first.ts", text: read("first.ts") },
    returned,
    seconds,
  };
}

/** Every case of the suite, in name order. */
export function loadRunCases(dir: string = RUNS_DIR): RunCase[] {
  return readdirSync(dir)
    .filter((name) => name !== AGENT_MANIFESTS && statSync(join(dir, name)).isDirectory())
    .sort()
    .map((name) => loadRunCase(join(dir, name), name));
}

export interface ProgramOutcome {
  file: string;
  text: string;
  kind: SecondKind | "first";
  facts: Facts;
  shipped: PolicyDecision; // decided with policies/default.toml, the agent's earlier output not read
  camel: PolicyDecision; // decided with camel-style.toml, the same
  // A second program as the authority reads it now: against what run 1 gave the agent (its
  // returned value, as the runner hands it in); absent for first.ts.
  given?: { facts: Facts; shipped: PolicyDecision; camel: PolicyDecision };
}

export interface CaseOutcome {
  runCase: RunCase;
  programs: ProgramOutcome[]; // first.ts, then the second programs
}

/** The user of the suite: their connections (in a fresh data directory) and the shipped manifests. */
function suiteWorld(): { dataDir: string; trusted: ManifestSet } {
  const dataDir = mkdtempSync(join(tmpdir(), "countersign-hitl-runs-"));
  writeFileSync(join(dataDir, "connections.toml"), CONNECTIONS);
  return { dataDir, trusted: loadManifests(join(packageRoot, "manifests")) };
}

/** The declarations the programs are written against: the shipped API and every case's agent actions. */
export function programsApi(cases: RunCase[]): string {
  const { dataDir, trusted } = suiteWorld();
  const sources = new Map(cases.flatMap((c) => c.agentManifests.map((m) => [m.name, m] as const)));
  return generateApi(manifestsFor(trusted, dataDir, [...sources.values()])).all;
}

/**
 * Every program of every case, analyzed with the shipped manifests (and the case's agent actions)
 * and decided with both policies: alone, and (the second programs) read against what run 1 gave
 * the agent, as the authority reads an agent's later programs.
 */
export function decideRunCases(cases: RunCase[] = loadRunCases()): CaseOutcome[] {
  const { dataDir, trusted } = suiteWorld();
  const options = { manifests: trusted, home: HOME, ownAddresses: ownAddressesOf(loadConnections(dataDir)) };
  const shipped = loadPolicy(join(packageRoot, "policies"), options);
  const camel = loadPolicy(RUNS_DIR, options);
  return cases.map((runCase) => {
    const manifests = manifestsFor(trusted, dataDir, runCase.agentManifests);
    const analyzer = createAnalyzer(manifests);
    try {
      const decided = (facts: Facts) => ({ shipped: decideAndSign(facts, shipped, manifests).decision, camel: decideAndSign(facts, camel, manifests).decision });
      const firstFacts = analyzer.analyze(runCase.first.text, { entry: `${runCase.name}/${runCase.first.file}` });
      const first: ProgramOutcome = { ...runCase.first, kind: "first", facts: firstFacts, ...decided(firstFacts) };
      const given = givenOf({ value: runCase.returned, logs: [] }, firstFacts, `req_${runCase.name}`, [runCase.first.text]);
      const seconds = runCase.seconds.map(({ file, text, kind }): ProgramOutcome => {
        const facts = analyzer.analyze(text, { entry: `${runCase.name}/${file}` });
        const marked = markPasted(facts, [text, ...runCase.agentManifests.map((m) => m.text)], given, { ownAddresses: options.ownAddresses });
        return { file, text, kind, facts, ...decided(facts), given: { facts: marked, ...decided(marked) } };
      });
      return { runCase, programs: [first, ...seconds] };
    } finally {
      analyzer.dispose();
    }
  });
}

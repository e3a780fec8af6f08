// The task set of the human-in-the-loop benchmark (bench/hitl/*.ts), decided with the shipped
// policy as the authority decides a submission: the analysis computes the facts, the policy in
// force decides over them. Shared by the benchmark and its test, so both count the same thing.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAnalyzer } from "../src/analyze/index.js";
import { decideAndSign } from "../src/app/decide-and-sign.js";
import { loadConnections, loadManifests, loadPolicy, ownAddressesOf } from "../src/config/index.js";
import type { Facts, PolicyDecision } from "../src/model/index.js";
import { packageRoot } from "../src/model/paths.js";

export const TASK_DIR = join(packageRoot, "bench", "hitl");
export const HOME = "/home/user";
// CaMeL (Debenedetti et al., 2025) asks the user on 33.9% of benign AgentDojo tasks.
export const CAMEL_ASK_RATE = 33.9;

/** A user's connections.toml: their own address, one root, one listed host. */
export const CONNECTIONS = `[email]
address = "me@example.com"

[fs]
roots = ["${HOME}/Sandbox"]

[http]
hosts = ["api.example.com:443"]
`;

export interface TaskOutcome {
  name: string;
  injection: boolean; // its header says "Injection"
  facts: Facts;
  decision: PolicyDecision;
}

/** Every task of bench/hitl, analyzed and decided with the shipped policy for a user with CONNECTIONS. */
export function decideTasks(): TaskOutcome[] {
  const dataDir = mkdtempSync(join(tmpdir(), "countersign-hitl-"));
  writeFileSync(join(dataDir, "connections.toml"), CONNECTIONS);
  const manifests = loadManifests(join(packageRoot, "manifests"));
  const policy = loadPolicy(join(packageRoot, "policies"), {
    manifests,
    home: HOME,
    ownAddresses: ownAddressesOf(loadConnections(dataDir)),
  });
  const analyzer = createAnalyzer(manifests);
  try {
    return readdirSync(TASK_DIR)
      .filter((f) => f.endsWith(".ts"))
      .sort()
      .map((name) => {
        const source = readFileSync(join(TASK_DIR, name), "utf8");
        const facts = analyzer.analyze(source, { entry: name });
        return {
          name,
          injection: /^\/\/ Injection/.test(source),
          facts,
          decision: decideAndSign(facts, policy, manifests).decision,
        };
      });
  } finally {
    analyzer.dispose();
  }
}

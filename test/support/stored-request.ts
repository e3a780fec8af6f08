// A request as the store keeps it, for a program analyzed and decided with the shipped manifests
// and policy: what the approval surfaces and the questions are built from.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Analyzer } from "../../src/analyze/index.js";
import type { ManifestSet } from "../../src/manifest/index.js";
import type { StoredRequest } from "../../src/model/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { decide, type Policy } from "../../src/policy/index.js";

export interface Deciding {
  analyzer: Analyzer;
  policy: Policy;
  manifests: ManifestSet;
}

/** A pending request for `source`, submitted by the token "agent" on 2030-01-01, waiting 15 minutes. */
export function storedRequest(
  { analyzer, policy, manifests }: Deciding,
  source: string,
  entry = "program.ts",
  extra: Partial<StoredRequest> = {},
): StoredRequest {
  const facts = analyzer.analyze(source, { entry });
  return {
    id: "req_AAAAAAAAAAAAAAAAAAAAAA",
    seq: 1,
    token: "agent",
    status: "pending",
    source,
    facts,
    policy: decide(facts, policy, manifests),
    rationale: null,
    created_at: Date.parse("2030-01-01T00:00:00Z"),
    deadline_at: Date.parse("2030-01-01T00:15:00Z"),
    decision: null,
    ...extra,
  };
}

/** The source of one of the examples. */
export const exampleSource = (name: string): string => readFileSync(join(packageRoot, "examples", name), "utf8");

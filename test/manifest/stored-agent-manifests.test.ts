// Agent manifests as a request keeps them: their canonical text hashes to what the facts and the
// receipt bind, and checks again into the same agent actions; anything else is an error, never a throw.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadManifests } from "../../src/config/index.js";
import {
  checkAgentManifests,
  checkStoredAgentManifests,
  formatManifestError,
  storedAgentManifests,
  type Allowlists,
} from "../../src/manifest/index.js";
import { packageRoot } from "../../src/model/paths.js";

const trusted = loadManifests(join(packageRoot, "manifests"));
const allowlists: Allowlists = { hosts: { http: ["api.github.com:443"] }, roots: {} };
const TEXT = `# the agent's comment: not part of the canonical form
name = "create_issue"
version = "1.0.0"
description = "Open an issue."
idempotent = false

[[inputs]]
name = "repo"
type = "string"
description = "owner/name"

[[execute]]
id = "create"
connector = "http"
op = "post"
inputs = { url = "https://api.github.com/repos/\${args.repo}/issues", body = "{}" }

[approval]
required = false

[approval.preview]
op = "get"
args = { url = "https://api.github.com/repos/\${args.repo}" }
render = { Repository = "body" }
`;

const submitted = () =>
  checkAgentManifests(trusted, [{ name: "create_issue.toml", text: TEXT }], allowlists).set!.agent!;

describe("stored agent manifests", () => {
  it("the canonical text hashes to the set's sha256 and checks again into the same actions, preview target included", () => {
    const agent = submitted();
    expect(createHash("sha256").update(agent.text).digest("hex")).toBe(agent.sha256);
    expect(agent.text).not.toContain("comment");
    const again = checkStoredAgentManifests(trusted, agent.text, allowlists);
    expect(again.errors).toEqual([]);
    expect(again.set!.agent!.sha256).toBe(agent.sha256);
    expect(again.set!.agent!.text).toBe(agent.text);
    expect(again.set!.agent!.actions.get("agent.create_issue")!.previewOp).toBe("http.get");
    expect(storedAgentManifests(agent.text)!.map((m) => [m.name, m.description])).toEqual([
      ["create_issue", "Open an issue."],
    ]);
  });

  it("checks again against the allowlists in force: a host no longer allowed is an error", () => {
    const { errors } = checkStoredAgentManifests(trusted, submitted().text, {
      hosts: { http: ["example.org:443"] },
      roots: {},
    });
    expect(errors.map((e) => formatManifestError(e)).join("\n")).toMatch(
      /create_issue\.toml execute\[0\]\.inputs\.url/,
    );
  });

  it("a text that is not the canonical form is an error, never a throw", () => {
    for (const text of ["", "not json", "{}", "[]", '[["x"]]', "[[1, {}]]", '[["x", {"name": "x"}]]']) {
      const { set, errors } = checkStoredAgentManifests(trusted, text, allowlists);
      expect(set).toBeUndefined();
      expect(errors.length).toBeGreaterThan(0);
      expect(storedAgentManifests(text)).toBeUndefined();
    }
  });
});

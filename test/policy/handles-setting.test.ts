import { describe, expect, it } from "vitest";
import { CountersignError } from "../../src/model/errors.js";
import { loadPolicy } from "../../src/config/index.js";
import { handleOps } from "../../src/policy/index.js";
import { HOME, policyDir, shippedManifests } from "./helpers.js";

const set = shippedManifests();
const load = (files: Record<string, string>) => loadPolicy(policyDir(files), { manifests: set, home: HOME });

describe("the handles setting", () => {
  it("is the union of every file's patterns, without repeats", () => {
    const policy = load({
      "a.toml": 'handles = ["email.get_draft", "http.get"]\n',
      "b.toml": 'handles = ["http.get", "fs.*"]\n',
    });
    expect(handleOps(policy)).toEqual(["email.get_draft", "fs.*", "http.get"]);
  });

  it("is empty when no file sets it", () => {
    expect(handleOps(load({ "a.toml": 'default = "ask"\n' }))).toEqual([]);
  });

  it("takes part in the policy hash, and leaving it out keeps the hash of a policy without it", () => {
    const without = load({ "a.toml": 'default = "ask"\n' }).sha256;
    const empty = load({ "a.toml": 'default = "ask"\nhandles = []\n' }).sha256;
    const some = load({ "a.toml": 'default = "ask"\nhandles = ["http.get"]\n' }).sha256;
    expect(some).not.toBe(without);
    expect(empty).not.toBe(some);
  });

  it("an op no manifest has is an error naming the line", () => {
    let thrown: unknown;
    try {
      load({ "a.toml": 'default = "ask"\nhandles = ["http.get", "email.get_draftt"]\n' });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(CountersignError);
    expect((thrown as CountersignError).details).toMatchObject({ field: "handles.1", line: 2 });
    expect((thrown as CountersignError).message).toMatch(/no action "email.get_draftt" in the manifests/);
  });

  it("a pattern that is not an op pattern is an error", () => {
    expect(() => load({ "a.toml": 'handles = ["not an op"]\n' })).toThrow(CountersignError);
  });
});

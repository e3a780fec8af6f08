import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPolicy } from "../../src/config/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { describeRuleWhen, policyBound } from "../../src/policy/index.js";
import { HOME, policyOf, shippedManifests } from "./helpers.js";

const shipped = () =>
  loadPolicy(join(packageRoot, "policies"), {
    manifests: shippedManifests(),
    home: HOME,
    ownAddresses: ["me@example.com"],
  });

describe("policyBound", () => {
  it("the shipped policy: writes and folders only within ~/Sandbox, every deny rule about it summarised", () => {
    const { rules } = shipped();
    for (const [op, allow] of [
      ["fs.write_file", "fs.write-in-sandbox"],
      ["fs.make_dir", "fs.make-dir-in-sandbox"],
    ] as const) {
      const bound = policyBound(rules, op, "path", "under");
      expect(bound.within).toEqual([`${HOME}/Sandbox`]);
      // The allow rule passes calls in the sandbox only under more conditions (a path no untrusted
      // data chose, a call count): named for the agent to read, not summarised as a bound.
      expect(bound.see).toEqual([allow]);
      expect(bound.rules).toHaveLength(3); // the plain rule and its untrusted and influenced variants
    }
    expect(policyBound(rules, "fs.read_file", "path", "under")).toMatchObject({
      within: null,
      auto_pass: [],
      rules: [],
      see: [],
    });
  });

  it("the shipped policy: HTTP only to the listed hosts; GET to them runs without asking, POST not", () => {
    const { rules } = shipped();
    expect(policyBound(rules, "http.get", "url", "host_in")).toMatchObject({
      within: ["api.example.com"],
      auto_pass: ["api.example.com"],
      rules: ["http.unlisted-host", "http.get-listed"],
      see: [],
    });
    expect(policyBound(rules, "http.post", "url", "host_in")).toMatchObject({
      within: ["api.example.com"],
      auto_pass: [],
      see: [],
    });
  });

  it("a custom policy: several deny bounds widen the set, allow rules with under give where writes pass", () => {
    const { rules } = policyOf(`
[[rules]]
id = "outside-a"
decision = "deny"
op = "fs.*"
when = { args = { path = { not = { under = "/srv/a" } } } }
reason = "a"

[[rules]]
id = "notes"
decision = "allow"
op = "fs.write_file"
when = { args = { path = { under = "/srv/a/notes" } } }
`);
    expect(policyBound(rules, "fs.write_file", "path", "under")).toEqual({
      op: "fs.write_file",
      input: "path",
      within: ["/srv/a"],
      auto_pass: ["/srv/a/notes"],
      rules: ["outside-a", "notes"],
      see: [],
    });
    // The glob op covers make_dir too; the allow rule names write_file alone.
    expect(policyBound(rules, "fs.make_dir", "path", "under")).toMatchObject({ within: ["/srv/a"], auto_pass: [] });
  });

  it("a rule it cannot summarise is named in see, never guessed into a bound", () => {
    const { rules } = policyOf(`
[[rules]]
id = "either"
decision = "deny"
op = "fs.write_file"
when = { args = { path = { not = { any = [{ under = "/srv/a" }, { under = "/srv/b" }] } } } }
reason = "a or b"

[[rules]]
id = "untrusted-narrower"
decision = "deny"
op = "fs.write_file"
when = { args = { path = { all = [{ untrusted = true }, { not = { under = "/srv/a/in" } }] } } }
reason = "untrusted paths in /srv/a/in"

[[rules]]
id = "notes-if-short"
decision = "allow"
op = "fs.write_file"
when = { args = { path = { all = [{ under = "/srv/a/notes" }, { max_length = 40 }] } } }
`);
    expect(policyBound(rules, "fs.write_file", "path", "under")).toEqual({
      op: "fs.write_file",
      input: "path",
      within: null,
      auto_pass: [],
      rules: [],
      see: ["either", "untrusted-narrower", "notes-if-short"],
    });
  });

  it("a conditional deny that narrows an unconditional bound is not implied by it", () => {
    const { rules } = policyOf(`
[[rules]]
id = "outside"
decision = "deny"
op = "fs.write_file"
when = { args = { path = { not = { under = "/srv/a" } } } }
reason = "a"

[[rules]]
id = "untrusted-inbox"
decision = "deny"
op = "fs.write_file"
when = { args = { path = { all = [{ untrusted = true }, { not = { under = "/srv/a/inbox" } }] } } }
reason = "untrusted paths in the inbox"
`);
    expect(policyBound(rules, "fs.write_file", "path", "under")).toMatchObject({
      within: ["/srv/a"],
      rules: ["outside"],
      see: ["untrusted-inbox"],
    });
  });
});

describe("describeRuleWhen", () => {
  it("says the rule's conditions and what steered the call in plain words", () => {
    const byId = new Map(shipped().rules.map((r) => [r.id, r]));
    expect(describeRuleWhen(byId.get("fs.read")!)).toBe("any call of fs.read_file");
    expect(describeRuleWhen(byId.get("email.to-myself")!)).toBe("every to of email.send_email is in [me@example.com]");
    expect(describeRuleWhen(byId.get("http.influenced-request")!)).toBe(
      "a call of http.*, when what steered the call may derive from untrusted data",
    );
    expect(describeRuleWhen(byId.get("fs.influenced-path-outside-sandbox")!)).toBe(
      `a call of fs.write_file whose path does not satisfy (is under ${HOME}/Sandbox), when what steered the call may derive from untrusted data`,
    );
    expect(describeRuleWhen(byId.get("email.untrusted-recipients")!)).toBe(
      "a call of email.send_email whose to may derive from untrusted data",
    );
    const { rules } = policyOf(`
[[rules]]
id = "few-posts"
decision = "ask"
op = "http.post"
when = { args = { url = { host_in = ["api.example.com"] } }, count = { max = 2 } }
`);
    expect(describeRuleWhen(rules[0]!)).toBe(
      "a call of http.post whose url has a host in [api.example.com], at most 2 calls of http.post",
    );
  });
});

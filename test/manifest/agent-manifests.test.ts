import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadManifests } from "../../src/config/index.js";
import {
  AGENT_LIMITS,
  agentManifestsError,
  checkAgentManifests,
  formatManifestError,
  generateApi,
  type Allowlists,
} from "../../src/manifest/index.js";
import { packageRoot } from "../../src/model/paths.js";

const trusted = loadManifests(join(packageRoot, "manifests"));
const allowlists: Allowlists = {
  hosts: { http: ["api.github.com:443"], email: ["gmail.googleapis.com:443"] },
  roots: { fs: ["/home/me/Sandbox"] },
};

/** An agent action posting to one host; `extra` replaces the [[execute]] step and what follows. */
function action(
  name: string,
  step = `[[execute]]\nid = "create"\nconnector = "http"\nop = "post"\ninputs = { url = "https://api.github.com/repos/\${args.repo}/issues", body = "\${args.payload}", content_type = "application/json" }\n`,
): string {
  return [
    `name = "${name}"`,
    `version = "1.0.0"`,
    `description = "Open an issue in a GitHub repository."`,
    `idempotent = false`,
    ``,
    `[[inputs]]`,
    `name = "repo"`,
    `type = "string"`,
    `description = "owner/name of the repository."`,
    ``,
    `[[inputs]]`,
    `name = "payload"`,
    `type = "string"`,
    `description = "The issue as JSON."`,
    ``,
    step,
  ].join("\n");
}

function errorsOf(text: string, name = "a.toml", lists: Allowlists = allowlists): string[] {
  const { set, errors } = checkAgentManifests(trusted, [{ name, text }], lists);
  expect(set === undefined).toBe(errors.length > 0);
  return errors.map((e) => formatManifestError(e));
}

const post = (url: string) =>
  `[[execute]]\nid = "create"\nconnector = "http"\nop = "post"\ninputs = { url = ${JSON.stringify(url)}, body = "\${args.payload}" }\n`;

describe("agent manifests: valid", () => {
  it("become agent.<name> actions beside the trusted set, each step resolved to its trusted action", () => {
    const { set, errors } = checkAgentManifests(
      trusted,
      [{ name: "create_issue.toml", text: action("create_issue") }],
      allowlists,
    );
    expect(errors).toEqual([]);
    const created = set!.agent!.actions.get("agent.create_issue")!;
    expect(created.steps.map((s) => s.op)).toEqual(["http.post"]);
    expect(set!.actions).toBe(trusted.actions); // the trusted actions stay as they were: the policy never sees agent.*
    expect(set!.agent!.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("hash the same for the same actions whatever the file names, comments and key order; differently when an action changes", () => {
    const hash = (sources: { name: string; text: string }[]) =>
      checkAgentManifests(trusted, sources, allowlists).set!.agent!.sha256;
    const a = { name: "a.toml", text: action("create_issue") };
    const b = { name: "b.toml", text: action("open_issue") };
    expect(hash([a, b])).toBe(
      hash([
        { ...b, name: "x.toml" },
        { ...a, text: `# a comment\n${a.text}` },
      ]),
    );
    expect(hash([a])).not.toBe(hash([{ ...a, text: a.text.replace("issues", "pulls") }]));
  });

  it("leave a URL whose host the manifest does not fix to the analysis and the run", () => {
    expect(errorsOf(action("x", post("${args.repo}")))).toEqual([]);
    expect(errorsOf(action("x", post("https://${args.repo}/issues")))).toEqual([]);
  });

  it("take a trailing dot for the same host name, as the connector does", () => {
    expect(errorsOf(action("x", post("https://api.github.com./${args.repo}")))).toEqual([]);
  });

  it("check no host when neither the manifest nor the user lists any", () => {
    expect(errorsOf(action("x", post("https://evil.example/")), "a.toml", { hosts: {}, roots: {} })).toEqual([]);
  });
});

describe("agent manifests: refused, each with file:line and field", () => {
  it("a step on an unknown connector or op, or with inputs its op does not take", () => {
    expect(errorsOf(action("x", `[[execute]]\nid = "s"\nconnector = "ftp"\nop = "put"\n`))).toEqual([
      'a.toml:18 execute[0].connector: "ftp" is not a trusted connector (connectors: email, fs, http)',
    ]);
    expect(errorsOf(action("x", `[[execute]]\nid = "s"\nconnector = "http"\nop = "delete"\n`))).toEqual([
      'a.toml:19 execute[0].op: "delete" is not a trusted action of connector http (actions: get, post)',
    ]);
    expect(errorsOf(action("x", `[[execute]]\nid = "s"\nconnector = "email"\nop = "send_message"\n`))[0]).toContain(
      '"send_message" is not a trusted action of connector email',
    );
    expect(
      errorsOf(
        action(
          "x",
          `[[execute]]\nid = "s"\nconnector = "http"\nop = "get"\ninputs = { url = "https://api.github.com/", headers = "x" }\n`,
        ),
      ),
    ).toEqual(["a.toml:20 execute[0].inputs.headers: is not an input of http.get (inputs: url)"]);
    expect(
      errorsOf(
        action(
          "x",
          `[[execute]]\nid = "s"\nconnector = "http"\nop = "post"\ninputs = { url = "https://api.github.com/" }\n`,
        ),
      ),
    ).toEqual(["a.toml:20 execute[0].inputs: misses required input body of http.post"]);
    expect(errorsOf(action("x", `[[execute]]\nid = "s"\nconnector = "agent"\nop = "x"\n`))[0]).toContain(
      "an agent action cannot call another agent action",
    );
  });

  it.each([
    [
      "a literal URL on another host",
      "https://evil.example/issues",
      '"https://evil.example/issues" can never be on a host that connector http may call (api.github.com:443)',
    ],
    [
      "a templated URL on another host",
      "https://evil.example/${args.repo}",
      'a value starting "https://evil.example/" can never be on a host',
    ],
    [
      "userinfo: the host is after the @",
      "https://api.github.com@evil.example/${args.repo}",
      'a value starting "https://api.github.com@evil.example/"',
    ],
    ["another port", "https://api.github.com:8443/${args.repo}", 'a value starting "https://api.github.com:8443/"'],
    ["plain http is port 80", "http://api.github.com/${args.repo}", 'a value starting "http://api.github.com/"'],
    ["an IDN look-alike (Cyrillic a)", "https://\u0430pi.github.com/${args.repo}", "can never be on a host"],
    ["two trailing dots", "https://api.github.com../${args.repo}", 'a value starting "https://api.github.com../"'],
    ["a longer host with the allowed one as prefix", "https://api.github.com.evil.example/x", "can never be on a host"],
    ["not http at all", "file:///etc/passwd", "can never be on a host"],
  ])("%s", (_, url, message) => {
    const errors = errorsOf(action("x", post(url)));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^a\.toml:20 execute\[0\]\.inputs\.url: /);
    expect(errors[0]).toContain(message);
  });

  it.each([
    ["a literal path outside", "/etc/passwd"],
    ["a path climbing out of the root", "/home/me/Sandbox/../.ssh/id_ed25519"],
    ["a sibling sharing the root's prefix", "/home/me/Sandbox2/notes.txt"],
  ])("a path escaping the roots: %s", (_, path) => {
    const step = `[[execute]]\nid = "read"\nconnector = "fs"\nop = "read_file"\ninputs = { path = ${JSON.stringify(path)} }\n`;
    const errors = errorsOf(action("x", step).replace("idempotent = false", "idempotent = true"));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("execute[0].inputs.path: ");
    expect(errors[0]).toContain("can never be under a root of connector fs (/home/me/Sandbox)");
  });

  it("a path under the roots passes", () => {
    const step = `[[execute]]\nid = "read"\nconnector = "fs"\nop = "read_file"\ninputs = { path = "/home/me/Sandbox/notes/\${args.repo}" }\n`;
    expect(errorsOf(action("x", step).replace("idempotent = false", "idempotent = true"))).toEqual([]);
  });

  it("a gated op wrapped in an ungated action, and an idempotent action that writes", () => {
    const send = `[[execute]]\nid = "send"\nconnector = "email"\nop = "send_email"\ninputs = { to = ["bob@example.com"], subject = "\${args.repo}", body = "\${args.payload}" }\n`;
    expect(errorsOf(action("x", send))).toEqual([
      "a.toml approval.required: must be true: its steps call email.send_email, which require approval",
    ]);
    expect(errorsOf(action("x", `${send}\n[approval]\nrequired = true\n`))).toEqual([]);
    expect(errorsOf(action("x").replace("idempotent = false", "idempotent = true"))).toEqual([
      "a.toml:4 idempotent: cannot be true: its steps call http.post, which are not idempotent",
    ]);
  });

  it("an action named like a trusted one (its name or its function name), or twice", () => {
    expect(errorsOf(action("send_email"))).toEqual([
      'a.toml:1 name: "send_email" is named like the trusted action email.send_email: an agent action needs a name of its own',
    ]);
    expect(errorsOf(action("post"))[0]).toContain("is named like the trusted action http.post");
    expect(errorsOf(action("delete"))).toEqual(['a.toml:1 name: "delete" would export the reserved word delete']);
    expect(errorsOf(action("read_file", post("https://evil.example/")))).toHaveLength(2); // a bad name does not hide the other problems
    const { errors } = checkAgentManifests(
      trusted,
      [
        { name: "a.toml", text: action("open") },
        { name: "b.toml", text: action("open__") },
      ],
      allowlists,
    );
    expect(errors.map((e) => formatManifestError(e))).toEqual([
      'b.toml:1 name: "open__" and "open" (a.toml) both become agent.open',
    ]);
  });

  it("a [resolve]: only trusted actions resolve inputs (the wrapper's read runs outside the program's calls)", () => {
    const errors = errorsOf(
      `${action("x")}\n[resolve]\nop = "get_draft"\nargs = { id = "\${args.repo}" }\ninputs = { to = "to" }\n`,
    );
    expect(errors).toEqual([
      expect.stringMatching(/^a\.toml:\d+ resolve: only a trusted action may declare \[resolve\]/),
    ]);
  });

  it("a preview pointing at a write, at an approval-gated action, or at nothing", () => {
    const send = `[[execute]]\nid = "send"\nconnector = "email"\nop = "send_draft"\ninputs = { draft_id = "\${args.repo}" }\n\n[approval]\nrequired = true\n\n[approval.preview]\nrender = { To = "to" }\n`;
    expect(errorsOf(action("x", `${send}op = "draft_email"\n`))).toContain(
      'a.toml:27 approval.preview.op: "email.draft_email" is not idempotent = true, so it cannot run as a preview',
    );
    expect(errorsOf(action("x", `${send}op = "send_email"\n`))).toContain(
      'a.toml:27 approval.preview.op: "email.send_email" is not idempotent = true, so it cannot run as a preview',
    );
    expect(errorsOf(action("x", `${send}op = "nothing"\n`))).toEqual([
      'a.toml:27 approval.preview.op: "nothing" is not a trusted action of the connectors its steps use (email)',
    ]);
    expect(errorsOf(action("x", `${send}op = "get_draft"\nargs = { id = "\${args.repo}" }\n`))).toEqual([]);
  });

  it("the shipped rules: interpolations naming nothing, duplicate step ids, schema errors", () => {
    expect(errorsOf(action("x", post("https://api.github.com/${args.nope}")))).toEqual([
      'a.toml:20 execute[0].inputs.url: "${args.nope}" names no input of this action (inputs: repo, payload)',
    ]);
    expect(errorsOf(action("x").replace('version = "1.0.0"', 'version = "one"'))).toEqual([
      "a.toml:2 version: must be a SemVer version like 1.0.0",
    ]);
    expect(errorsOf(`${action("x")}\n${post("https://api.github.com/")}`)).toEqual([
      'a.toml:23 execute[1].id: duplicate step id "create" (also execute[0])',
    ]);
  });

  it("the error is analysis_rejected listing every problem", () => {
    const { errors } = checkAgentManifests(trusted, [{ name: "a.toml", text: "name = 1" }], allowlists);
    const err = agentManifestsError(errors);
    expect(err.class).toBe("analysis_rejected");
    expect(err.details).toMatchObject({ reason: "invalid_agent_manifests" });
    expect(err.message).toContain("a.toml:1 name: must be a string, not 1");
  });
});

describe("agent manifests: limits and hostile TOML never crash", () => {
  it("too many files, too many bytes, steps, inputs, references and nesting", () => {
    const many = Array.from({ length: AGENT_LIMITS.manifests + 1 }, (_, i) => ({
      name: `m${i}.toml`,
      text: action(`a${i}`),
    }));
    expect(checkAgentManifests(trusted, many, allowlists).errors[0]!.message).toContain(
      `more than the ${AGENT_LIMITS.manifests}`,
    );
    expect(errorsOf(action("x") + `# ${"x".repeat(AGENT_LIMITS.bytes)}\n`)[0]).toContain(
      `more than the ${AGENT_LIMITS.bytes} an agent manifest may take`,
    );
    const steps = Array.from({ length: AGENT_LIMITS.steps + 1 }, (_, i) =>
      post("https://api.github.com/").replace('id = "create"', `id = "s${i}"`),
    ).join("\n");
    expect(errorsOf(action("x", steps))).toEqual([
      `a.toml execute: has ${AGENT_LIMITS.steps + 1} steps, more than the ${AGENT_LIMITS.steps} an agent action may have`,
    ]);
    const inputs = Array.from(
      { length: AGENT_LIMITS.inputs },
      (_, i) => `[[inputs]]\nname = "i${i}"\ntype = "string"\ndescription = "d"\n`,
    ).join("\n");
    expect(errorsOf(action("x").replace("[[execute]]", `${inputs}\n[[execute]]`))[0]).toContain(
      `more than the ${AGENT_LIMITS.inputs} an agent action may declare`,
    );
    const refs = Array.from({ length: AGENT_LIMITS.references + 1 }, () => "${args.repo}").join("");
    expect(errorsOf(action("x", post(`https://api.github.com/${refs}`)))[0]).toContain(
      `more than the ${AGENT_LIMITS.references} an agent action may use`,
    );
    const deep = `[[execute]]\nid = "s"\nconnector = "http"\nop = "post"\ninputs = { url = "https://api.github.com/", body = [[[[["\${args.repo}"]]]]] }\n`;
    expect(errorsOf(action("x", deep))).toContain(
      `a.toml:20 execute[0].inputs: nested more than ${AGENT_LIMITS.depth} levels deep`,
    );
  });

  it.each([
    ["not TOML", "name = \n= x"],
    ["an unterminated string", 'name = "x'],
    ["nesting past the TOML limit", `x = ${"[".repeat(200)}${"]".repeat(200)}`],
    ["a NUL byte", 'name = "a\0b"'],
    [
      "__proto__ and constructor keys",
      action("x", post("https://api.github.com/")).replace("body =", '__proto__ = "x", constructor = "y", body ='),
    ],
    [
      "a __proto__ table supplying an input",
      action(
        "x",
        `[[execute]]\nid = "s"\nconnector = "http"\nop = "post"\ninputs = { url = "https://api.github.com/", __proto__ = { body = "x" } }\n`,
      ),
    ],
    ["a table where a string belongs", 'name = { a = 1 }\nversion = "1.0.0"'],
    ["a date", "name = 1979-05-27T07:32:00Z"],
    ["an empty file", ""],
    [
      "ten thousand keys",
      Array.from({ length: 10000 }, (_, i) => `k${i} = ${i}`)
        .join("\n")
        .slice(0, AGENT_LIMITS.bytes - 10),
    ],
  ])("%s: an error, never a crash", (_, text) => {
    const errors = errorsOf(text);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.startsWith("a.toml"))).toBe(true);
    expect(Object.prototype).not.toHaveProperty("x");
  });
});

/** An agent action posting `body` with an optional `kind`; `inputs` replaces the step's inputs. */
function withOptional(inputs: string, extra = ""): string {
  return [
    `name = "note"`,
    `version = "1.0.0"`,
    `description = "Post a note."`,
    `idempotent = false`,
    ``,
    `[[inputs]]`,
    `name = "body"`,
    `type = "string"`,
    `description = "The note."`,
    ``,
    `[[inputs]]`,
    `name = "kind"`,
    `type = "string"`,
    `required = false`,
    `description = "Its content type."`,
    ``,
    `[[execute]]`,
    `id = "post"`,
    `connector = "http"`,
    `op = "post"`,
    `inputs = ${inputs}`,
    extra,
  ].join("\n");
}

describe("agent manifests: optional inputs", () => {
  it("an optional input as a field's whole value passes, typed optional in the API, and the call's result typed by its last step", () => {
    const { set, errors } = checkAgentManifests(
      trusted,
      [
        {
          name: "a.toml",
          text: withOptional(
            '{ url = "https://api.github.com/notes", body = "${args.body}", content_type = "${args.kind}" }',
          ),
        },
      ],
      allowlists,
    );
    expect(errors).toEqual([]);
    const api = generateApi(set!).modules["trusted/agent"]!;
    expect(api).toContain("body: string;");
    expect(api).toContain("kind?: string;");
    expect(api).toMatch(
      /\): Promise<\{[\s\S]*status: number;[\s\S]*headers: Record<string, unknown>;[\s\S]*body: string;\s*\}>;/,
    );
  });

  it("is refused inside a longer string, in a list, or where the step's op requires the value", () => {
    expect(
      errorsOf(
        withOptional(
          '{ url = "https://api.github.com/notes", body = "${args.body}", content_type = "text/${args.kind}" }',
        ),
      ),
    ).toEqual([
      "a.toml:21 execute[0].inputs.content_type: puts optional input kind inside a longer string, which has no text for a missing value: make kind required, or pass it as the whole value",
    ]);
    expect(errorsOf(withOptional('{ url = "https://api.github.com/notes", body = "${args.kind}" }'))).toEqual([
      "a.toml:21 execute[0].inputs.body: is optional input kind, but http.post requires body: make kind required",
    ]);
    const mail = withOptional(
      '{ to = ["a@example.com", "${args.kind}"], subject = "s", body = "${args.body}" }',
    ).replace('connector = "http"\nop = "post"', 'connector = "email"\nop = "draft_email"');
    expect(errorsOf(mail)).toEqual([
      "a.toml:21 execute[0].inputs.to[1]: puts optional input kind in a list, where a missing value has no place: make kind required",
    ]);
  });

  it("declaring [result] is refused: an agent action returns its last step's checked result", () => {
    const extra = `\n[result]\n\n[[result.fields]]\nname = "status"\ntype = "string"\ntrusted = true\ndescription = "x"\n`;
    expect(errorsOf(withOptional('{ url = "https://api.github.com/notes", body = "${args.body}" }', extra))).toEqual([
      "a.toml:23 result: only a trusted action may declare [result]; an agent action returns its last step's result",
    ]);
  });
});

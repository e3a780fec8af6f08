import { Project, ts } from "ts-morph";
import { beforeAll, describe, expect, it } from "vitest";
import {
  actionFunctionName,
  findActionByFunction,
  generateApi,
  type ApiDeclarations,
} from "../../src/manifest/generate-api.js";
import { loadManifests } from "../../src/config/index.js";
import type { ManifestSet } from "../../src/manifest/manifest-set.js";
import { EffectConstraint } from "../../src/model/constraint.js";
import { copyWithFakeWasm } from "./fixture.js";

let set: ManifestSet;
let api: ApiDeclarations;
let project: Project;

beforeAll(() => {
  set = loadManifests(copyWithFakeWasm());
  api = generateApi(set);
  project = new Project({
    useInMemoryFileSystem: true,
    compilerOptions: {
      lib: ["lib.es2022.d.ts"],
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
    },
  });
  project.createSourceFile("/api.d.ts", api.all);
});

let programs = 0;
/** Diagnostics of one program compiled against the generated API, as "line: message". */
function diagnose(source: string): string[] {
  const file = project.createSourceFile(`/program${programs++}.ts`, source);
  try {
    return file
      .getPreEmitDiagnostics()
      .map((d) => `${d.getLineNumber()}: ${ts.flattenDiagnosticMessageText(d.compilerObject.messageText, "\n")}`);
  } finally {
    project.removeSourceFile(file);
  }
}

describe("actionFunctionName", () => {
  it.each([
    ["send_draft", "sendDraft"],
    ["get", "get"],
    ["list_dir", "listDir"],
    ["read__file", "readFile"],
    ["send_v2_email", "sendV2Email"],
    ["trailing_", "trailing"],
  ])("%s -> %s", (action, name) => expect(actionFunctionName(action)).toBe(name));
});

describe("findActionByFunction", () => {
  it("maps a connector and function name back to the action", () => {
    expect(findActionByFunction(set, "email", "sendDraft")?.op).toBe("email.send_draft");
    expect(findActionByFunction(set, "http", "post")?.op).toBe("http.post");
  });

  it("finds nothing for a function of another connector or an unknown name", () => {
    expect(findActionByFunction(set, "fs", "sendDraft")).toBeUndefined();
    expect(findActionByFunction(set, "email", "send_draft")).toBeUndefined();
    expect(findActionByFunction(set, "email", "nope")).toBeUndefined();
  });
});

describe("generated declarations", () => {
  it("has one module per connector, its contracts, and countersign; all concatenates them", () => {
    expect(Object.keys(api.modules)).toEqual([
      "countersign",
      "trusted/email",
      "trusted/email/contracts",
      "trusted/fs",
      "trusted/fs/contracts",
      "trusted/http",
      "trusted/http/contracts",
    ]);
    for (const [name, text] of Object.entries(api.modules)) {
      expect(text.startsWith(`declare module "${name}" {\n`)).toBe(true);
      expect(api.all).toContain(text);
    }
  });

  it("types inputs from the manifest, marks optional ones, and documents each", () => {
    const http = api.modules["trusted/http"] ?? "";
    expect(http).toContain("export function post(args: {");
    expect(http).toContain("/** Content-Type header; application/json when omitted. */\n    content_type?: string;");
    expect(http).toContain("    url: string;");
    expect(api.modules["trusted/email"]).toContain("    to: string[];");
  });

  it("notes approval-gated actions and only those", () => {
    const email = api.modules["trusted/email"] ?? "";
    const doc = (fn: string): string =>
      email
        .slice(0, email.indexOf(`export function ${fn}(`))
        .split("/**")
        .pop() ?? "";
    const note = "Requires the user's approval unless the policy allows it.";
    expect(doc("sendEmail")).toContain(note);
    expect(doc("sendDraft")).toContain(note);
    expect(doc("draftEmail")).not.toContain(note);
    expect(doc("getDraft")).not.toContain(note);
    expect(doc("sendDraft")).toContain("Effect: `email.send_draft`.");
  });

  it("declares contract helpers from their params and doc", () => {
    expect(api.modules["trusted/email/contracts"]).toContain(
      "/** Every email this program sends or drafts goes only to these addresses. */\n  export function recipientsOnly(addresses: string[]): Guarantee;",
    );
    expect(api.modules["trusted/fs/contracts"]).toContain("export function noWrites(): Guarantee;");
  });

  it("maps every input type and items_type, and keeps */ in a description from ending the comment", () => {
    const action = set.actions.get("http.post");
    if (action === undefined) throw new Error("fixture lost http.post");
    const inputs = [
      { name: "n", type: "integer" as const, required: true, description: "An integer." },
      { name: "x", type: "number" as const, required: true, description: "A number." },
      { name: "flag", type: "boolean" as const, required: false, description: "A flag */ declare const evil: 1; /*" },
      { name: "meta", type: "object" as const, required: true, description: "Metadata." },
      { name: "ids", type: "array" as const, items_type: "integer" as const, required: true, description: "Ids." },
      { name: "rows", type: "array" as const, items_type: "object" as const, required: true, description: "Rows." },
    ];
    const custom: ManifestSet = {
      ...set,
      actions: new Map([["http.post", { ...action, manifest: { ...action.manifest, inputs } }]]),
    };
    const text = generateApi(custom).modules["trusted/http"] ?? "";
    expect(text).toContain("n: number;");
    expect(text).toContain("x: number;");
    expect(text).toContain("flag?: boolean;");
    expect(text).toContain("meta: Record<string, unknown>;");
    expect(text).toContain("ids: number[];");
    expect(text).toContain("rows: Record<string, unknown>[];");
    expect(text).toContain("A flag *\\/ declare const evil: 1; /*");
    const isolated = new Project({
      useInMemoryFileSystem: true,
      compilerOptions: { lib: ["lib.es2022.d.ts"], strict: true },
    });
    const file = isolated.createSourceFile("/api.d.ts", text);
    expect(file.getPreEmitDiagnostics()).toHaveLength(0);
    expect(file.getDescendantsOfKind(ts.SyntaxKind.VariableStatement)).toHaveLength(0);
  });

  it("makes args optional when an action has no required input", () => {
    const action = set.actions.get("fs.list_dir");
    if (action === undefined) throw new Error("fixture lost fs.list_dir");
    const custom: ManifestSet = {
      ...set,
      actions: new Map([["fs.list_dir", { ...action, manifest: { ...action.manifest, inputs: [] } }]]),
    };
    expect(generateApi(custom).modules["trusted/fs"]).toContain(
      "export function listDir(args?: {}): Promise<Record<string, unknown>>;",
    );
  });
});

describe("compiling programs against the API", () => {
  it("the declarations alone compile cleanly", () => {
    expect(project.getSourceFileOrThrow("/api.d.ts").getPreEmitDiagnostics()).toHaveLength(0);
  });

  it("an example agent program compiles with zero diagnostics", () => {
    expect(
      diagnose(`import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "Tell Bob the weekly report is ready.",
  guarantees: [recipientsOnly(["bob@example.com"]), { op: "fs.*", count: { max: 0 } }],
  async main() {
    await sendEmail({ to: ["bob@example.com"], subject: "Report ready", body: "It is in /reports." });
  },
});
`),
    ).toEqual([]);
  });

  it("a program using results, optional inputs and every contract module compiles", () => {
    expect(
      diagnose(`import { program, type Guarantee } from "countersign";
import { draftEmail, sendDraft } from "trusted/email";
import { readFile, writeFile } from "trusted/fs";
import { post } from "trusted/http";
import { writesUnder } from "trusted/fs/contracts";
import { onlyHosts } from "trusted/http/contracts";

const limits: Guarantee[] = [writesUnder("/tmp/out"), onlyHosts(["api.example.com"]), { op: "email.send_*", args: { to: { all: [{ glob: "*@example.com" }, { not: { eq: "x@example.com" } }] } } }];
export default program({
  rationale: "Copy a file, post it, draft and send it.",
  guarantees: limits,
  async main() {
    const file = await readFile({ path: "/tmp/in.txt" });
    const content = String(file.content);
    await writeFile({ path: "/tmp/out/copy.txt", content });
    await post({ url: "https://api.example.com:443/x", body: content });
    const draft = await draftEmail({ to: ["a@example.com"], subject: "s", body: content });
    await sendDraft({ draft_id: String(draft.id) });
  },
});
`),
    ).toEqual([]);
  });

  it("a wrong argument type gets one diagnostic on its line", () => {
    const diagnostics = diagnose(`import { program } from "countersign";
import { sendEmail } from "trusted/email";
export default program({
  rationale: "x",
  async main() {
    await sendEmail({ to: "bob@example.com", subject: "s", body: "b" });
  },
});
`);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatch(/^6: Type 'string' is not assignable to type 'string\[\]'/);
  });

  it.each([
    ["a missing required input", `await sendDraft({});`, /Property 'draft_id' is missing/],
    ["an unknown input", `await sendDraft({ draft_id: "d", cc: "x" });`, /'cc' does not exist/],
    ["a function the connector does not export", `await sendDraf({ draft_id: "d" });`, /Cannot find name 'sendDraf'/],
    [
      "a result used as a string without a check",
      `const r = await getDraft({ id: "d" }); await sendDraft({ draft_id: r.id });`,
      /Type 'unknown' is not assignable to type 'string'/,
    ],
  ])("%s is a type error", (_, body, message) => {
    const diagnostics = diagnose(`import { getDraft, sendDraft } from "trusted/email";
async function main(): Promise<void> { ${body} }
`);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatch(message);
  });

  it.each([
    ["an op of an unknown connector", `{ op: "mail.send_email" }`],
    ["a constraint key that does not exist", `{ op: "email.*", args: { to: { glob_: "*" } } }`],
    ["a count that is not a number", `{ op: "email.*", count: { max: "1" } }`],
    ["a contract helper with a wrong argument", `recipientsOnly("bob@example.com")`],
  ])("a guarantee with %s is a type error", (_, guarantee) => {
    const diagnostics = diagnose(`import type { Guarantee } from "countersign";
import { recipientsOnly } from "trusted/email/contracts";
export const g: Guarantee[] = [${guarantee}];
`);
    expect(diagnostics.length).toBeGreaterThanOrEqual(1);
  });

  it("every guarantee the model's EffectConstraint accepts is a Guarantee", () => {
    const samples = [
      { op: "*" },
      { op: "email.send_*", count: { max: 2 }, distinct: "to" },
      { op: "fs.write_file", args: { path: { under: "/tmp" } } },
      {
        op: "http.get",
        args: { url: { any: [{ host_in: ["a.example"] }, { in: ["x", 1, null, true, { k: [1] }] }] } },
      },
      {
        op: "email.send_email",
        args: { subject: { all: [{ max_length: 80 }, { not_in: ["x"] }, { not: { eq: "y" } }] } },
      },
      {
        op: "http.*",
        args: {
          url: { all: [{ prefix: "https://api.x.com/" }, { suffix: "&n=*" }, { type: ["string"] }, { min_length: 1 }] },
        },
      },
      { op: "email.*", args: { to: { elements: { in: ["bob@example.com"] } } } },
      { op: "http.post", args: { body: { fields: { a: { all: [] } } } } },
    ];
    for (const sample of samples) expect(EffectConstraint.parse(sample)).toEqual(sample);
    expect(
      diagnose(
        `import type { Guarantee } from "countersign";\nexport const g: Guarantee[] = ${JSON.stringify(samples)};\n`,
      ),
    ).toEqual([]);
  });
});

import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkManifests, loadManifests } from "../../src/config/index.js";
import { formatManifestError } from "../../src/manifest/manifest-error.js";
import { manifestsHash } from "../../src/manifest/manifests-hash.js";
import { CountersignError } from "../../src/model/errors.js";
import { packageRoot } from "../../src/model/paths.js";
import { corpus, type Edit } from "./corpus.js";
import { copyWithFakeWasm } from "./fixture.js";

function applyEdit(dir: string, edit: Edit): void {
  const path = join(dir, edit.file);
  if (edit.remove) return rmSync(path);
  if (edit.write !== undefined) return writeFileSync(path, edit.write);
  let text = readFileSync(path, "utf8");
  if (edit.replace !== undefined) {
    const [from, to] = edit.replace;
    const found = typeof from === "string" ? text.includes(from) : from.test(text);
    if (!found) throw new Error(`fixture drift: ${String(from)} not in ${edit.file}`);
    text = text.replace(from, to);
  }
  if (edit.append !== undefined) text += edit.append;
  writeFileSync(path, text);
}

describe("valid manifests", () => {
  it("load the fixture set: every connector and every action keyed by op", () => {
    const set = loadManifests(copyWithFakeWasm());
    expect([...set.connectors.keys()]).toEqual(["email", "fs", "http"]);
    expect([...set.actions.keys()]).toEqual([
      "email.draft_email",
      "email.get_draft",
      "email.send_draft",
      "email.send_email",
      "fs.list_dir",
      "fs.read_file",
      "fs.write_file",
      "http.get",
      "http.post",
    ]);
    const sendDraft = set.actions.get("email.send_draft");
    expect(sendDraft).toMatchObject({ connector: "email", name: "send_draft" });
    expect(sendDraft?.file).toBe(join(set.dir, "email", "send_draft.toml"));
    expect(sendDraft?.manifest.approval.preview?.op).toBe("get_draft");
    expect(set.actions.get("http.post")?.manifest.inputs[2]).toMatchObject({ name: "content_type", required: false });
    expect(set.connectors.get("email")?.wasmPath).toBe(join(set.dir, "..", "wasm", "email.wasm"));
  });

  it("the shipped manifests are valid apart from their wasm pins", () => {
    const { errors } = checkManifests(copyWithFakeWasm(join(packageRoot, "manifests")));
    expect(errors).toEqual([]);
  });

  it("defaults required to true and fills empty preview args and multiline", () => {
    const dir = copyWithFakeWasm();
    applyEdit(dir, { file: "email/get_draft.toml", replace: ["required = true\n", ""] });
    applyEdit(dir, { file: "email/send_draft.toml", replace: [/^(args|multiline) = .*\n/gm, ""] });
    const set = loadManifests(dir);
    expect(set.actions.get("email.get_draft")?.manifest.inputs[0]?.required).toBe(true);
    expect(set.actions.get("email.send_draft")?.manifest.approval.preview).toMatchObject({ args: {}, multiline: [] });
  });

  it("ignores hidden entries and directories without TOML files", () => {
    const dir = copyWithFakeWasm();
    writeFileSync(join(dir, ".stray.toml"), "not = [toml");
    writeFileSync(join(dir, "README.md"), "# manifests\n");
    expect(checkManifests(dir).errors).toEqual([]);
  });
});

describe("invalid manifests: one broken rule each", () => {
  it("the corpus has at least 25 cases with distinct names", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(25);
    expect(new Set(corpus.map((c) => c.name)).size).toBe(corpus.length);
  });

  it.each(corpus.map((c) => [c.name, c] as const))("%s", (_, c) => {
    const dir = copyWithFakeWasm();
    for (const edit of c.edits) applyEdit(dir, edit);
    const { set, errors } = checkManifests(dir);
    expect(set).toBeUndefined();
    const expected = { file: c.expect.file, field: c.expect.field, message: expect.stringContaining(c.expect.message) };
    expect(errors).toContainEqual(c.expect.line === undefined ? expected : { ...expected, line: c.expect.line });
    expect(errors).toHaveLength(c.count ?? 1);
  });
});

describe("reporting", () => {
  it("reports a TOML syntax error with its line and stops checking that file", () => {
    const dir = copyWithFakeWasm();
    applyEdit(dir, { file: "http/post.toml", replace: ['label = "Body"', 'label = "Body'] });
    expect(checkManifests(dir).errors).toEqual([
      { file: "http/post.toml", field: "", line: 18, message: expect.stringMatching(/^invalid TOML: /) },
    ]);
  });

  it("reports a duplicate TOML key as a syntax error", () => {
    const dir = copyWithFakeWasm();
    applyEdit(dir, { file: "http/get.toml", replace: ['version = "1.0.0"', 'version = "1.0.0"\nversion = "1.0.1"'] });
    const [error] = checkManifests(dir).errors;
    expect(error).toMatchObject({ file: "http/get.toml", field: "", line: 3 });
  });

  it("reports every error of a directory at once, ordered by file and line", () => {
    const dir = copyWithFakeWasm();
    applyEdit(dir, { file: "email/send_draft.toml", replace: ['op = "get_draft"', 'op = "get_drafts"'] });
    applyEdit(dir, {
      file: "fs/write_file.toml",
      replace: [
        'type = "string"\nrequired = true\ndescription = "The new',
        'type = "str"\nrequired = true\ndescription = "The new',
      ],
    });
    applyEdit(dir, { file: "email/connector.toml", replace: ['"gmail.googleapis.com:443"', '"gmail.googleapis.com"'] });
    const lines = checkManifests(dir).errors.map((e) => formatManifestError(e));
    expect(lines).toEqual([
      "email/connector.toml:10 capabilities.network.hosts[0]: must be host:port with an explicit port and no wildcard",
      'email/send_draft.toml:23 approval.preview.op: "get_drafts" is not an action of connector email',
      'fs/write_file.toml:15 inputs[1].type: must be one of "string", "integer", "number", "boolean", "array", "object"',
    ]);
  });

  it("loadManifests throws one config_error listing every problem in details.errors", () => {
    const dir = copyWithFakeWasm();
    applyEdit(dir, { file: "http/post.toml", replace: ['name = "post"', 'name = "put"'] });
    applyEdit(dir, { file: "../wasm/fs.wasm", remove: true });
    let thrown: unknown;
    try {
      loadManifests(dir);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(CountersignError);
    const err = thrown as CountersignError;
    expect(err.class).toBe("config_error");
    expect(err.boundary).toBe("manifest");
    expect(err.message).toContain("(2 errors)");
    expect(err.message).toContain('http/post.toml:1 name: "put" does not match the file name post.toml');
    expect(err.details).toEqual({
      dir,
      errors: [
        {
          file: "fs/connector.toml",
          field: "wasm",
          line: 6,
          message: "../../wasm/fs.wasm does not exist (the sha256 pin cannot be checked)",
        },
        { file: "http/post.toml", field: "name", line: 1, message: '"put" does not match the file name post.toml' },
      ],
    });
  });

  it("reports a missing directory as an error, not a crash", () => {
    const dir = join(copyWithFakeWasm(), "nope");
    expect(existsSync(dir)).toBe(false);
    expect(checkManifests(dir).errors).toEqual([
      { file: ".", field: "", message: expect.stringContaining("cannot read the manifest directory") },
    ]);
    expect(() => loadManifests(dir)).toThrow(CountersignError);
  });

  it("checks the files of an invalid neighbour without cascading errors", () => {
    const dir = copyWithFakeWasm();
    applyEdit(dir, { file: "email/get_draft.toml", replace: ["idempotent = true", "idempotent = 1"] });
    // get_draft is invalid on its own; send_draft's preview names it but is not blamed for it.
    expect(checkManifests(dir).errors.map((e) => `${e.file} ${e.field}`)).toEqual(["email/get_draft.toml idempotent"]);
  });
});

describe("the manifests' hash", () => {
  it("binds the result fields: a field's type or flag changes it, a comment does not", () => {
    const hashOf = (edit?: Edit) => {
      const dir = copyWithFakeWasm();
      applyEdit(dir, {
        file: "fs/read_file.toml",
        append: '\n[result]\n\n[[result.fields]]\nname = "content"\ntype = "string"\ndescription = "The text."\n',
      });
      if (edit !== undefined) applyEdit(dir, edit);
      return manifestsHash(loadManifests(dir));
    };
    const base = hashOf();
    expect(hashOf({ file: "fs/read_file.toml", append: "# a comment\n" })).toBe(base);
    expect(
      hashOf({
        file: "fs/read_file.toml",
        replace: ['type = "string"\ndescription = "The text."', 'type = "number"\ndescription = "The text."'],
      }),
    ).not.toBe(base);
    expect(hashOf({ file: "fs/read_file.toml", append: "trusted = true\n" })).not.toBe(base);
  });
});

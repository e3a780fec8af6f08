// `format` on an action input: the canonical form the wrapper checks and sends it in.
import { describe, expect, it } from "vitest";
import { ActionManifest } from "../../src/manifest/schema.js";
import { shippedManifests } from "../connector/fixtures.js";

const manifest = (input: Record<string, unknown>) => ({
  name: "a",
  version: "1.0.0",
  description: "d",
  idempotent: true,
  inputs: [{ name: "x", description: "x", ...input }],
  execute: [{ id: "s", connector: "c", op: "o" }],
});

describe("input format", () => {
  it("is url, path or email, on a string input or an array of strings", () => {
    for (const format of ["url", "path", "email"]) {
      expect(ActionManifest.safeParse(manifest({ type: "string", format })).success).toBe(true);
      expect(ActionManifest.safeParse(manifest({ type: "array", items_type: "string", format })).success).toBe(true);
    }
  });

  it("is refused elsewhere, and any other name", () => {
    expect(ActionManifest.safeParse(manifest({ type: "string", format: "uri" })).success).toBe(false);
    expect(ActionManifest.safeParse(manifest({ type: "integer", format: "url" })).success).toBe(false);
    expect(ActionManifest.safeParse(manifest({ type: "array", items_type: "object", format: "email" })).success).toBe(
      false,
    );
  });

  it("is set on the shipped manifests' URL, path and recipient inputs", () => {
    const set = shippedManifests();
    const formatOf = (op: string, input: string) =>
      set.actions.get(op)!.manifest.inputs.find((i) => i.name === input)!.format;
    expect([formatOf("http.get", "url"), formatOf("http.post", "url")]).toEqual(["url", "url"]);
    expect(["fs.read_file", "fs.list_dir", "fs.write_file"].map((op) => formatOf(op, "path"))).toEqual([
      "path",
      "path",
      "path",
    ]);
    expect([formatOf("email.send_email", "to"), formatOf("email.draft_email", "to")]).toEqual(["email", "email"]);
  });
});

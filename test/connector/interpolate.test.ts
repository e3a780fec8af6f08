import { describe, expect, it } from "vitest";
import { fillTemplate } from "../../src/connector/interpolate.js";
import { parseTemplate } from "../../src/manifest/template.js";
import { resolvePath } from "../../src/connector/resolve-path.js";

/** Parse once (as the manifest loader does), fill with the scope (as a run does). */
const interpolate = (value: unknown, scope: Parameters<typeof fillTemplate>[1]) =>
  fillTemplate(parseTemplate(value, []).template, scope);

const scope = {
  args: { to: ["a@x.com", "b@x.com"], subject: "Hi", n: 3 },
  create: { id: "r1", message: { id: "m1" } },
};

describe("fillTemplate over parseTemplate", () => {
  it("keeps the JSON type of a value that is exactly one reference", () => {
    expect(interpolate({ to: "${args.to}", n: "${args.n}", id: "${create.id}" }, scope)).toEqual({
      to: ["a@x.com", "b@x.com"],
      n: 3,
      id: "r1",
    });
  });

  it("stringifies references inside longer strings", () => {
    expect(interpolate("To ${args.to} (${args.n}): ${args.subject} ${create.message.id}", scope)).toBe(
      'To ["a@x.com","b@x.com"] (3): Hi m1',
    );
  });

  it("drops a field whose whole value is absent (an optional input left out)", () => {
    expect(interpolate({ url: "${args.subject}", content_type: "${args.content_type}" }, scope)).toEqual({ url: "Hi" });
  });

  it("refuses an absent value inside a longer string", () => {
    expect(() => interpolate("x-${args.nope}", scope)).toThrow(
      expect.objectContaining({ class: "connector_error", message: "${args.nope} has no value" }),
    );
  });

  it("leaves other values and plain text alone", () => {
    expect(interpolate({ a: [1, true, null, "plain $ {x}"], b: 2 }, scope)).toEqual({
      a: [1, true, null, "plain $ {x}"],
      b: 2,
    });
  });
});

describe("resolvePath", () => {
  const draft = {
    message: {
      payload: {
        headers: [
          { name: "To", value: "bob@example.com" },
          { name: "subject", value: "Hi" },
        ],
      },
    },
    list: [10, 20],
  };
  it("reads fields, numeric indexes and {name, value} lists by name, case-insensitively", () => {
    expect(resolvePath(draft, "message.payload.headers.To")).toBe("bob@example.com");
    expect(resolvePath(draft, "message.payload.headers.SUBJECT")).toBe("Hi");
    expect(resolvePath(draft, "list.1")).toBe(20);
    expect(resolvePath(draft, "message.payload.headers.0.name")).toBe("To");
  });

  it("is undefined for anything missing, and never reads inherited properties", () => {
    expect(resolvePath(draft, "message.payload.headers.Cc")).toBeUndefined();
    expect(resolvePath(draft, "list.5")).toBeUndefined();
    expect(resolvePath(draft, "message.nope.deeper")).toBeUndefined();
    expect(resolvePath(draft, "message.constructor")).toBeUndefined();
    expect(resolvePath("text", "length")).toBeUndefined();
  });
});

describe("parseTemplate", () => {
  it("finds every reference once, with where it is, and keeps reference-free parts as literals", () => {
    const parsed = parseTemplate(
      { to: "${args.to}", body: "Hi ${args.name}!", list: [1, "${step.id}"], plain: { a: "x" } },
      ["inputs"],
    );
    expect(parsed.problems).toEqual([]);
    expect(parsed.references.map((r) => [r.path, r.reference.path])).toEqual([
      [["inputs", "to"], "args.to"],
      [["inputs", "body"], "args.name"],
      [["inputs", "list", 1], "step.id"],
    ]);
    expect(parsed.template).toEqual({
      kind: "record",
      fields: [
        ["to", { kind: "reference", reference: { path: "args.to", source: "args" } }],
        ["body", { kind: "text", parts: ["Hi ", { path: "args.name", source: "args" }, "!"] }],
        [
          "list",
          {
            kind: "list",
            items: [
              { kind: "literal", value: 1 },
              { kind: "reference", reference: { path: "step.id", source: "step" } },
            ],
          },
        ],
        ["plain", { kind: "literal", value: { a: "x" } }],
      ],
    });
  });

  it("reports an unterminated ${ and a malformed reference at their path", () => {
    expect(parseTemplate({ a: "x ${args.to", b: "${args}" }, []).problems).toEqual([
      { path: ["a"], message: 'unterminated "${" in "x ${args.to"' },
      { path: ["b"], message: '"${args}" is not a valid reference: use ${args.<input>} or ${<step>.<field>}' },
    ]);
  });
});

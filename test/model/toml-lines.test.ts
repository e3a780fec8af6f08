import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { formatField, indexKeyLines, lineOf } from "../../src/model/toml-lines.js";

const source = `# comment with name = "not a key"
name = "x"
description = """
a multi-line string
fake = "not a key"
[not.a.table]
"""
list = [
  "a = b",
  { inner = 1 },
]

[[inputs]]
name = "first"
type = "string"

[[inputs]]
name = "second"
  type = 'array' # indented
"quoted key" = 1
dotted.key = 2

[approval]
required = true

[approval.preview]
op = "get"
render = { To = "a.b" }

[[inputs]]
name = "third"

[ "quoted" . table ]
key = 1
`;

describe("indexKeyLines", () => {
  const { lines } = indexKeyLines(source);
  // The scanner must agree with a real parser about what the source holds.
  it("reads a source that smol-toml accepts", () => expect(() => parse(source)).not.toThrow());

  it.each([
    [["name"], 2],
    [["description"], 3],
    [["list"], 8],
    [["inputs", 0], 13],
    [["inputs", 0, "type"], 15],
    [["inputs", 1, "name"], 18],
    [["inputs", 1, "type"], 19],
    [["inputs", 1, "quoted key"], 20],
    [["inputs", 1, "dotted", "key"], 21],
    [["approval", "required"], 24],
    [["approval", "preview", "op"], 27],
    [["inputs", 2, "name"], 31],
    [["quoted", "table", "key"], 34],
  ])("%j is on line %i", (path, line) => expect(lineOf(lines, path)).toBe(line));

  it("never reads keys inside multi-line strings, arrays or comments", () => {
    expect(lineOf(lines, ["fake"])).toBeUndefined();
    expect(lineOf(lines, ["not"])).toBeUndefined();
    expect(lineOf(lines, ["inner"])).toBeUndefined();
  });

  it("falls back to the nearest ancestor that is written out", () => {
    expect(lineOf(lines, ["inputs", 0, "description"])).toBe(13);
    expect(lineOf(lines, ["approval", "preview", "render", "To"])).toBe(28);
    expect(lineOf(lines, ["list", 1, "inner"])).toBe(8);
    expect(lineOf(lines, ["version"])).toBeUndefined();
    expect(lineOf(lines, [])).toBeUndefined();
  });

  it("handles CRLF line ends", () => {
    expect(lineOf(indexKeyLines('a = 1\r\n[t]\r\nb = "x"\r\n').lines, ["t", "b"])).toBe(3);
  });
});

describe("formatField", () => {
  it.each([
    [["inputs", 1, "type"], "inputs[1].type"],
    [["approval", "preview", "op"], "approval.preview.op"],
    [["capabilities", "network", "hosts", 0], "capabilities.network.hosts[0]"],
    [["approval", "preview", "render", "Content type"], 'approval.preview.render["Content type"]'],
    [[], ""],
  ])("%j -> %s", (path, text) => expect(formatField(path)).toBe(text));
});

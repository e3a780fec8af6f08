// The size and shape bounds on what crosses from a program to the host.
import { describe, expect, it } from "vitest";
import { marshal } from "../../src/connector/marshal.js";
import { MAX_DEPTH, MAX_NODES, MAX_TEXT } from "../../src/sandbox/marshal.js";
import { program, run, texts } from "./helpers.js";

async function send(expression: string) {
  const r = await run(
    program(
      `// @ts-nocheck\ntry { await writeFile(${expression}); console.log("sent"); } catch (e) { console.log(e.message); }`,
    ),
  );
  return { message: texts(r)[0]!, invoked: r.invoked, calls: r.calls, refused: r.refused };
}

describe("arguments crossing to the host", () => {
  it("accepts frozen objects and nested plain data", async () => {
    const r = await send(
      `Object.freeze({ path: "/a", content: "x", meta: { tags: ["a", "b"], n: 1.5, ok: false, none: null } })`,
    );
    expect(r.message).toBe("sent");
    expect(r.invoked[0]!.args).toEqual({
      path: "/a",
      content: "x",
      meta: { tags: ["a", "b"], n: 1.5, ok: false, none: null },
    });
  });

  it("carries every string and number exactly: quotes, backslashes, control characters, lone surrogates, keys alike", async () => {
    const strings = [
      "plain",
      'q"uote',
      "back\\slash",
      "tab\tnew\nline\u0000\u001f",
      "lone \ud800 \udfff",
      "pair \ud83d\ude00",
      "é \u2028 \u007f",
      "",
    ];
    const numbers = [0, -0, 1.5, -2, 1e21, 5e-324, Number.MAX_SAFE_INTEGER, 0.1 + 0.2];
    const r = await send(
      `{ path: "/a", content: "x", strings: ${JSON.stringify(strings)}, numbers: [${numbers.map(String).join(", ")}], keyed: { 'k"\\\\\\u0001\\ud800': 1 } }`,
    );
    expect(r.message).toBe("sent");
    const args = r.invoked[0]!.args as { strings: string[]; numbers: number[]; keyed: Record<string, number> };
    expect(args.strings).toEqual(strings);
    expect(args.numbers).toEqual(numbers.map((n) => (Object.is(n, -0) ? 0 : n))); // JSON has no -0
    expect(Object.keys(args.keyed)).toEqual(['k"\\\u0001\ud800']);
  });

  // Both sides of each cap, with the connector's marshal (the same bounds) taking what the sandbox let through.
  // The value counts itself, path, content and list (4 parts) and the keys path and content (11 characters).
  it(`takes exactly ${MAX_NODES} parts, and the connector's marshal takes them too`, async () => {
    const r = await send(`{ path: "/a", content: "x", list: Array.from({ length: ${MAX_NODES - 4} }, () => 1) }`);
    expect(r.message).toBe("sent");
    expect(marshal(r.invoked[0]!.args)).toEqual(r.invoked[0]!.args);
  });

  it(`refuses more than ${MAX_NODES} parts, naming the bound`, async () => {
    const r = await send(`{ path: "/a", content: "x", list: Array.from({ length: ${MAX_NODES - 3} }, () => 1) }`);
    expect(r.message).toContain(`more than ${MAX_NODES} parts`);
    expect(r.invoked).toEqual([]);
  });

  it(`takes exactly ${MAX_TEXT} characters of text, and the connector's marshal takes them too`, async () => {
    const r = await send(`{ path: "/a", content: "x".repeat(${MAX_TEXT - 13}) }`);
    expect(r.message).toBe("sent");
    expect(marshal(r.invoked[0]!.args)).toEqual(r.invoked[0]!.args);
  });

  it(`refuses more than ${MAX_TEXT} characters of text`, async () => {
    const r = await send(`{ path: "/a", content: "x".repeat(${MAX_TEXT - 12}) }`);
    expect(r.message).toContain(`more than ${MAX_TEXT} characters`);
    expect(r.invoked).toEqual([]);
  });

  it(`refuses nesting deeper than ${MAX_DEPTH}, with the path to it`, async () => {
    const r = await send(
      `(() => { let v = { leaf: true }; for (let i = 0; i < ${MAX_DEPTH}; i++) v = { v }; return { path: "/a", content: "x", deep: v }; })()`,
    );
    expect(r.message).toContain(`nested more than ${MAX_DEPTH} levels deep`);
    expect(r.message).toContain("deep.v.v");
  });

  it("refuses arguments that are not one object", async () => {
    expect((await send(`"path"`)).message).toContain("must be an object of named arguments");
    expect((await send(`["/a", "x"]`)).message).toContain("must be an object of named arguments");
  });

  // As the trusted wrapper reads a call's arguments: what crosses is what the program holds, never a null it did not write.
  it.each([
    [
      "a hole left by an index write past the length",
      `(() => { const tags = []; tags[1] = "b"; return { path: "/a", content: "x", tags }; })()`,
      "tags[0] is undefined or a hole",
    ],
    ["a hole from Array(n)", `{ path: "/a", content: "x", tags: Array(2) }`, "tags[0] is undefined or a hole"],
    [
      "an undefined element from Array.from of a sparse list",
      `(() => { const tags = []; tags[1] = "b"; return { path: "/a", content: "x", tags: Array.from(tags) }; })()`,
      "tags[0] is undefined or a hole",
    ],
    [
      "an undefined element deep inside",
      `{ path: "/a", content: "x", meta: { lists: [["a", undefined]] } }`,
      "meta.lists[0][1] is undefined or a hole",
    ],
    [
      "a list with a property other than its elements",
      `(() => { const tags = ["a"]; tags.extra = "x"; return { path: "/a", content: "x", tags }; })()`,
      "tags has properties other than its elements",
    ],
  ])("refuses %s, and the refused call is recorded", async (_, expression, message) => {
    const r = await send(expression);
    expect(r.message).toContain(message);
    expect(r.invoked).toEqual([]);
    expect(r.calls).toEqual([
      {
        op: "fs.write_file",
        status: "refused",
        error: { class: "grant_violation", message: expect.stringContaining(message) as string },
      },
    ]);
    expect(r.refused).toBe(1);
  });

  it("leaves a field holding undefined out, as the trusted wrapper does", async () => {
    const r = await send(`{ path: "/a", content: "x", note: undefined }`);
    expect(r.message).toBe("sent");
    expect(r.invoked[0]!.args).toEqual({ path: "/a", content: "x" });
  });

  it("still logs a list with holes as JSON does (only a call's arguments are read strictly)", async () => {
    const r = await run(program(`const xs: string[] = [];\nxs[1] = "b";\nconsole.log(xs, [undefined, 1]);`));
    expect(texts(r)).toEqual(['[null,"b"] [null,1]']);
  });

  it("takes no arguments as an empty object", async () => {
    const r = await run(program(`// @ts-nocheck\nawait listDir();`));
    expect(r.invoked).toEqual([{ op: "fs.list_dir", args: {} }]);
  });
});

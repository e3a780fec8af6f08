// The connectors' JSON (trusted/connectors/shared/json.ts) through the shipped fs plugin, called
// with input text no host would send: every malformed input is refused with the connector's
// error, every well-formed one is read as JSON.parse reads it, and what the plugin only passes
// on (the path, the host's listing) reaches the host and the output as the bytes it came as.
import createPlugin, { type CallContext, type Plugin } from "@extism/extism";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { METER_FUNCTION } from "../../src/connector/meter.js";
import { wasm } from "../../src/model/wasm.js";
import { buildTestPlugin, shippedManifests, tempDir } from "./fixtures.js";

const LISTING = '{ "ok" : true, "entries" : [ {"name":"a\\u00e9.txt","type":"file"} , {"name":"b","type":"dir"} ] }';
let plugin: Plugin;
let answer = LISTING; // what fs_list answers next
let requests: string[] = []; // what the plugin asked the host, in order
const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {} } as unknown as Console;

beforeAll(async () => {
  const module = await wasm.compile(readFileSync(shippedManifests().connectors.get("fs")!.wasmPath));
  const record = (reply: () => string) => (context: CallContext, offset: bigint) => {
    requests.push(context.read(offset)!.text());
    return context.store(reply());
  };
  // The plugin's fuel meter asks the host every ~µs whether to go on: here it always may.
  const functions = {
    fs_list: record(() => answer),
    fs_read: record(() => "{}"),
    fs_write: record(() => '{"ok":true,"bytes":0}'),
    fs_missing_dirs: record(() => '{"ok":true,"dirs":[]}'),
    fs_mkdir: record(() => '{"ok":true}'),
    [METER_FUNCTION]: () => undefined,
  };
  plugin = await createPlugin(
    { wasm: [{ module }] },
    { useWasi: false, logger: silent, functions: { "extism:host/user": functions } },
  );
});
afterAll(() => plugin.close());

/** The output text of list_dir on `input`, or the error the plugin set: `{ class, message }`. */
async function listDir(input: string): Promise<{ output: string } | { error: unknown }> {
  requests = [];
  await plugin.reset();
  try {
    return { output: (await plugin.call("list_dir", input))!.text() };
  } catch (err) {
    return { error: JSON.parse(String((err as Error).message).replace(/^Plugin-originated error: /, "")) };
  }
}

const notAnObject = { error: { class: "connector_error", message: "input is not a JSON object" } };
const nested = (n: number) => "[".repeat(n) + "]".repeat(n);

describe("connector JSON: malformed input is refused", () => {
  const malformed: [string, string][] = [
    ["empty text", ""],
    ["an unclosed object", '{"path":"/a"'],
    ["a trailing comma", '{"path":"/a",}'],
    ["text after the value", '{"path":"/a"} x'],
    ["two values", '{"path":"/a"}{}'],
    ["a raw control character in a string", '{"path":"/a\u0001"}'],
    ["an unknown escape", '{"path":"/a\\q"}'],
    ["a short \\u escape", '{"path":"/a\\u12"}'],
    ["an unterminated string", '{"path":"/a'],
    ["a key without quotes", '{path:"/a"}'],
    ["a missing colon", '{"path" "/a"}'],
    ["a leading zero", '{"path":"/a","n":01}'],
    ["a lone minus", '{"path":"/a","n":-}'],
    ["a fraction without digits", '{"path":"/a","n":1.}'],
    ["an exponent without digits", '{"path":"/a","n":1e+}'],
    ["a plus sign", '{"path":"/a","n":+1}'],
    ["a cut-off literal", '{"path":"/a","t":tru}'],
    ["a single quote", "{'path':'/a'}"],
    ["nesting past 64 levels below the input object", `{"path":"/a","d":${nested(65)}}`],
  ];
  for (const [what, input] of malformed) {
    it(`refuses ${what}, and asks the host nothing`, async () => {
      expect(await listDir(input)).toEqual(notAnObject);
      expect(requests).toEqual([]);
    });
  }

  it("refuses JSON that is not an object", async () => {
    for (const input of ["[]", '"/a"', "null", "1"]) expect(await listDir(input)).toEqual(notAnObject);
  });

  it("refuses a path that is not a string with the argument's error", async () => {
    for (const path of ["1", "null", '["/a"]', '{"p":"/a"}']) {
      expect(await listDir(`{"path":${path}}`)).toEqual({
        error: { class: "connector_error", message: "input `path` must be a string" },
      });
    }
    expect(await listDir("{}")).toEqual({
      error: { class: "connector_error", message: "input `path` must be a string" },
    });
  });
});

describe("connector JSON: well-formed input", () => {
  it("passes the path and the host's listing on as the bytes they came as", async () => {
    const path = '"/d\\u00e9j\\u00e0 \\"vu\\"\\\\\\n\\ud83d\\ude00\\/"';
    expect(await listDir(`{"path":${path}}`)).toEqual({
      output: `{"path":${path},"entries":[ {"name":"a\\u00e9.txt","type":"file"} , {"name":"b","type":"dir"} ]}`,
    });
    expect(requests).toEqual([`{"path":${path}}`]);
    expect(JSON.parse(requests[0]!).path).toBe('/déjà "vu"\\\n😀/');
  });

  it("passes a lone surrogate on as its escape, as the host admitted it", async () => {
    await listDir('{"path":"/a\\ud800"}');
    expect(JSON.parse(requests[0]!).path).toBe("/a\ud800");
  });

  it("reads whitespace, other members of every kind, nesting 64 levels below the input object, and the last of duplicate keys", async () => {
    const input = ` \n{ "x" : [1, -2.5e+3, 0.5E-1, 0, true, false, null, {"y": {}} , [] ] ,\t"path":"/first", "d": ${nested(64)}, "path" : "/second" }\r\n`;
    const r = await listDir(input);
    expect(r).toHaveProperty("output");
    expect(requests).toEqual(['{"path":"/second"}']);
  });

  it("refuses a host answer that is not JSON, and passes the host's own error on", async () => {
    answer = '{"ok":true,"entries":[';
    expect(await listDir('{"path":"/a"}')).toEqual({
      error: { class: "connector_error", message: "host answer is not a JSON object" },
    });
    answer = '{"ok":false,"error":{"class":"capability_denied","message":"/a: is outside the configured roots"}}';
    expect(await listDir('{"path":"/a"}')).toEqual({
      error: { class: "capability_denied", message: "/a: is outside the configured roots" },
    });
    answer = LISTING;
    expect(await listDir('{"path":"/a"}')).toHaveProperty("output");
  });
});

describe("connector memory", () => {
  it("starts each call with an empty heap: writes of 6 MiB, one after another on one instance, each fit the 16 MiB cap", async () => {
    const content = "x".repeat(6 << 20);
    for (let i = 0; i < 3; i++) {
      requests = [];
      await plugin.reset();
      const output = (await plugin.call("write_file", JSON.stringify({ path: `/w${i}`, content })))!.json();
      expect(output).toEqual({ path: `/w${i}`, bytes: 0, made_dirs: [] });
      expect(requests[0]).toBe(`{"path":"/w${i}","of":"file"}`); // which folders it would make: none
      expect(requests[1]!.length).toBe(content.length + `{"path":"/w${i}","content":""}`.length);
    }
  });

  it("refuses to run a connector whose module start allocated (a call's fresh heap would overwrite it)", async () => {
    const module = await wasm.compile(readFileSync(await buildTestPlugin("global", tempDir("cs-plugins-"))));
    const keeper = await createPlugin({ wasm: [{ module }] }, { useWasi: false, logger: silent });
    try {
      await expect(keeper.call("echo_kept", "{}")).rejects.toThrow(/unreachable/);
    } finally {
      await keeper.close();
    }
  }, 60_000);
});

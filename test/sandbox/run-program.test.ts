import { describe, expect, it } from "vitest";
import { CountersignError } from "../../src/model/errors.js";
import { runProgram } from "../../src/sandbox/index.js";
import { api, program, run, sha256, texts } from "./helpers.js";

const mail = `{ to: ["bob@example.com"], subject: "Report ready", body: "It is in /reports." }`;

describe("running a program", () => {
  it("runs main, hands each trusted call to invoke as plain data, and resolves it with the answer", async () => {
    const r = await run(program(`const answer = await sendEmail(${mail});\nconsole.log(answer.ok, answer.op);`));
    expect(r.outcome).toBe("returned");
    expect(r.invoked).toEqual([
      {
        op: "email.send_email",
        args: { to: ["bob@example.com"], subject: "Report ready", body: "It is in /reports." },
      },
    ]);
    expect(r.calls).toEqual([{ op: "email.send_email", status: "done" }]);
    expect(texts(r)).toEqual(["true email.send_email"]);
    expect(r.refused).toBe(0);
  });

  it("makes calls in program order, sequential and concurrent", async () => {
    const r = await run(
      program(`await writeFile({ path: "/a", content: "1" });
await Promise.all([writeFile({ path: "/b", content: "2" }), writeFile({ path: "/c", content: "3" })]);
await readFile({ path: "/a" });`),
    );
    expect(r.invoked.map((c) => [c.op, c.args.path])).toEqual([
      ["fs.write_file", "/a"],
      ["fs.write_file", "/b"],
      ["fs.write_file", "/c"],
      ["fs.read_file", "/a"],
    ]);
  });

  it("reads a call's arguments when it is made: changing them before the call goes out changes nothing sent", async () => {
    const r = await run(
      program(`const args = { path: "/a", content: "first" };
const written = writeFile(args);
args.content = "second";
await written;`),
    );
    expect(r.invoked).toEqual([{ op: "fs.write_file", args: { path: "/a", content: "first" } }]);
  });

  it("refuses arguments that are not plain data when the call is made, and the calls around it go out in order", async () => {
    const r = await run(
      program(`const results = await Promise.allSettled([
  readFile({ path: "/a" }),
  readFile({ get path() { return "/b"; } } as unknown as { path: string }),
  readFile({ path: "/c" }),
]);
console.log(results.map((x) => x.status).join(" "));`),
    );
    expect(r.invoked.map((c) => c.args.path)).toEqual(["/a", "/c"]);
    expect(r.calls.map((c) => c.status)).toEqual(["done", "refused", "done"]);
    expect(r.calls[1]!.error).toEqual({
      class: "grant_violation",
      message: "fs.read_file: the arguments are not plain data: path is an accessor (getter or setter)",
    });
    expect(texts(r)).toEqual(["fulfilled rejected fulfilled"]);
  });

  it("returns main's value when it is plain data", async () => {
    const r = await run(program(`return { sent: 2, to: ["a", "b"] };`));
    expect(r).toMatchObject({ outcome: "returned", value: { sent: 2, to: ["a", "b"] } });
    expect(r.valueDropped).toBeUndefined();
  });

  it("drops a value larger than the cap, saying how large, and the run still returned", async () => {
    const r = await run(program(`await sendEmail(${mail});\nreturn "x".repeat(70 * 1024);`));
    expect(r.outcome).toBe("returned");
    expect(r.calls).toEqual([{ op: "email.send_email", status: "done" }]);
    expect(r.value).toBeNull();
    expect(r.valueDropped).toEqual({ reason: "too_large", bytes: 70 * 1024 + 2, limit: 64 * 1024 });
  });

  it("drops a value exactly past a smaller cap, and keeps one exactly at it", async () => {
    const at = await run(program(`return "x".repeat(98);`), { limits: { valueBytes: 100 } });
    expect(at).toMatchObject({ outcome: "returned", value: "x".repeat(98) });
    const past = await run(program(`return "x".repeat(99);`), { limits: { valueBytes: 100 } });
    expect(past).toMatchObject({
      outcome: "returned",
      value: null,
      valueDropped: { reason: "too_large", bytes: 101, limit: 100 },
    });
  });

  it("drops a value that is not plain data, saying which part and why", async () => {
    const fn = await run(program(`return { summary: "ok", act: () => 1 } as unknown as void;`));
    expect(fn).toMatchObject({
      outcome: "returned",
      value: null,
      valueDropped: { reason: "not_plain_data", path: "$.act" },
    });
    expect(fn.valueDropped).toHaveProperty("why", expect.stringContaining("function"));
    const cycle = await run(program(`const o: Record<string, unknown> = {}; o.self = o; return o as unknown as void;`));
    expect(cycle).toMatchObject({
      outcome: "returned",
      value: null,
      valueDropped: { reason: "not_plain_data", path: "$.self" },
    });
    expect(cycle.valueDropped).toHaveProperty("why", expect.stringContaining("cycle"));
    const map = await run(program(`return [1, new Map()] as unknown as void;`));
    expect(map).toMatchObject({
      outcome: "returned",
      value: null,
      valueDropped: { reason: "not_plain_data", path: "$[1]" },
    });
  });

  it("a main that returns nothing gives null, nothing dropped", async () => {
    const r = await run(program(`await sendEmail(${mail});`));
    expect(r).toMatchObject({ outcome: "returned", value: null });
    expect(r.valueDropped).toBeUndefined();
  });

  it("waits for tasks main left running, and their calls", async () => {
    const r = await run(
      program(`void sendEmail(${mail}).then(() => sendEmail(${mail})).then(() => console.log("detached done"));
console.log("main done");`),
      { answer: async () => new Promise((resolve) => setTimeout(() => resolve({}), 20)) },
    );
    expect(r.outcome).toBe("returned");
    expect(r.invoked).toHaveLength(2);
    expect(texts(r)).toEqual(["main done", "detached done"]);
  });

  it("gives each answer as fresh data inside the program: changing one never changes the next", async () => {
    const r = await run(
      program(`const a = await readFile({ path: "/x" });
(a as { tag?: string }).tag = "changed";
const b = await readFile({ path: "/x" });
console.log(JSON.stringify(a), JSON.stringify(b), a === b);`),
      { answer: async () => ({ content: "same" }) },
    );
    expect(texts(r)).toEqual(['{"content":"same","tag":"changed"} {"content":"same"} false']);
  });

  it("rejects a refused call inside the program with a catchable grant_violation, counts it, and goes on", async () => {
    const r = await run(
      program(`try {
  await sendEmail({ to: ["mallory@example.com"], subject: "s", body: "b" });
} catch (e) {
  const err = e as { name: string; class: string; message: string };
  console.log(err.name, err.class, err.message);
}
await sendEmail(${mail});`),
      {
        answer: async (op, args) => {
          if (JSON.stringify(args.to) !== '["bob@example.com"]')
            throw new CountersignError("grant_violation", "receipt", `${op}: to is outside the grant`);
          return { id: "m1" };
        },
      },
    );
    expect(r.outcome).toBe("returned");
    expect(texts(r)).toEqual(["CountersignError grant_violation email.send_email: to is outside the grant"]);
    expect(r.calls).toEqual([
      {
        op: "email.send_email",
        status: "refused",
        error: { class: "grant_violation", message: "email.send_email: to is outside the grant" },
      },
      { op: "email.send_email", status: "done" },
    ]);
    expect(r.refused).toBe(1);
  });

  it("reports a refusal the program does not catch as what it threw, with the class", async () => {
    const r = await run(program(`await sendEmail(${mail});`), {
      answer: async () => {
        throw new CountersignError("grant_violation", "receipt", "count exceeded");
      },
    });
    expect(r.outcome).toBe("threw");
    expect(r.thrown).toMatchObject({ name: "CountersignError", class: "grant_violation", message: "count exceeded" });
    expect(r.refused).toBe(1);
  });

  it("keeps a connector failure apart from a refusal", async () => {
    const r = await run(
      program(`try { await sendEmail(${mail}); } catch (e) { console.log((e as { class: string }).class); }`),
      {
        answer: async () => {
          throw new CountersignError("external_api_error", "provider", "503 from the provider", { retriable: true });
        },
      },
    );
    expect(texts(r)).toEqual(["external_api_error"]);
    expect(r.calls).toEqual([
      {
        op: "email.send_email",
        status: "failed",
        error: { class: "external_api_error", message: "503 from the provider" },
      },
    ]);
    expect(r.refused).toBe(0);
  });

  it("shows the program an unexpected host error without its details", async () => {
    const r = await run(program(`await sendEmail(${mail});`), {
      answer: async () => {
        throw new Error("secret host detail /etc/keys");
      },
    });
    expect(r.thrown).toMatchObject({
      class: "internal_error",
      message: "email.send_email: the host failed to make the call",
    });
    expect(JSON.stringify(r)).not.toContain("secret host detail");
  });

  it("reports what the program throws", async () => {
    const r = await run(program(`throw new TypeError("no recipients");`));
    expect(r).toMatchObject({ outcome: "threw", thrown: { name: "TypeError", message: "no recipients" }, value: null });
    expect(r.thrown!.stack).toContain("program.ts");
  });

  it("reports a thrown primitive as it is", async () => {
    const r = await run(program(`throw "plain words";`));
    expect(r.thrown).toEqual({ name: "string", message: "plain words" });
  });

  it("builds contract helpers' guarantees from their arguments", async () => {
    const r = await run(program(`console.log(JSON.stringify(recipientsOnly(["a@example.com"])));`));
    expect(texts(r)).toEqual(['{"op":"email.*","args":{"to":{"in":["a@example.com"]}}}']);
  });

  it("refuses contract helper arguments of other types than declared, before the helper runs", async () => {
    const r = await run(
      program(`// @ts-nocheck
for (const args of [["x".repeat(100000)], [], [["a"], 2], [[1]]]) {
  try { recipientsOnly(...args); console.log("built"); } catch (e) { console.log(e.name + ": " + e.message); }
}`),
    );
    expect(texts(r)).toEqual(Array(4).fill("TypeError: recipientsOnly: expects (addresses: string[])"));
  });

  it("captures console.log and console.error with plain data as JSON and errors by name", async () => {
    const r = await run(
      program(
        `console.log("n =", 3, true, null, undefined, { a: [1] });\nconsole.error(new RangeError("bad"), () => 1);`,
      ),
    );
    expect(r.logs).toEqual([
      { stream: "log", text: 'n = 3 true null undefined {"a":[1]}' },
      { stream: "error", text: "RangeError: bad [function]" },
    ]);
  });

  it("runs a program whose source starts with a byte order mark", async () => {
    const r = await run(`\uFEFF${program(`console.log("ok");`)}`);
    expect(texts(r)).toEqual(["ok"]);
  });
});

describe("what never runs", () => {
  it("refuses bytes other than the approved ones before anything runs", async () => {
    const source = Buffer.from(program(`await sendEmail(${mail});`));
    const invoke = async () => ({});
    await expect(
      runProgram({ source, sha256: sha256(Buffer.from("other")), entry: "program.ts", api, invoke }),
    ).rejects.toMatchObject({
      class: "hash_mismatch",
      boundary: "sandbox",
    });
  });

  it("refuses bytes that are not UTF-8", async () => {
    const source = Buffer.from([0x63, 0xff, 0x0a]);
    await expect(
      runProgram({ source, sha256: sha256(source), entry: "program.ts", api, invoke: async () => ({}) }),
    ).rejects.toMatchObject({
      class: "analysis_rejected",
    });
  });

  it("refuses a program that does not parse", async () => {
    const source = Buffer.from("export default program({");
    await expect(
      runProgram({ source, sha256: sha256(source), entry: "program.ts", api, invoke: async () => ({}) }),
    ).rejects.toMatchObject({
      class: "analysis_rejected",
      message: expect.stringContaining("does not compile"),
    });
  });

  it("refuses limits that make no sense", async () => {
    const source = Buffer.from(program(""));
    const request = { source, sha256: sha256(source), entry: "program.ts", api, invoke: async () => ({}) };
    await expect(runProgram({ ...request, limits: { memoryBytes: 1 << 20 } })).rejects.toMatchObject({
      class: "config_error",
    });
    await expect(runProgram({ ...request, limits: { cpuMs: -1 } })).rejects.toMatchObject({ class: "config_error" });
  });

  it("resolves no module but countersign and trusted/*", async () => {
    for (const name of ["node:fs", "fs", "./helper.js", "trusted/nope", "countersign/internal"]) {
      const r = await run(`import x from ${JSON.stringify(name)};\n${program(`console.log(x);`)}`);
      expect(r.outcome, name).toBe("threw");
      expect(r.invoked).toEqual([]);
    }
  });

  it("loads only the modules the program imports: an import() of another finds nothing", async () => {
    const r = await run(`import { program } from "countersign";
import { sendEmail } from "trusted/email";
export default program({ rationale: "r", guarantees: [], async main() {
  // @ts-ignore
  const loaded = await import("trusted/email").then(() => "email", () => "no email");
  // @ts-ignore
  const other = await import("trusted/fs").then(() => "fs", () => "no fs");
  console.log(loaded, other, typeof sendEmail);
} });
`);
    expect(r.outcome).toBe("returned");
    expect(texts(r)).toEqual(["email no fs function"]);
  });

  it("needs the default export to be the value program(...) returned", async () => {
    const r = await run(
      `import { program } from "countersign";\nconst p = program({ rationale: "r", async main() {} });\nexport default { main: async () => {} };\nvoid p;\n`,
    );
    expect(r).toMatchObject({
      outcome: "threw",
      thrown: { name: "TypeError", message: "the default export must be the value of program(...)" },
    });
  });
});

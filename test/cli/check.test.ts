import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { packageRoot } from "../../src/model/paths.js";
import { isolatedEnv } from "../support/isolated-env.js";

function capture(stdin: Uint8Array | string = ""): Io & { out: string; err: string } {
  const io = {
    out: "",
    err: "",
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    readStdin: async () => stdin,
    env: isolatedEnv(),
    cwd: packageRoot,
  };
  return io;
}

describe("countersign check", () => {
  it("prints the facts of an example as one JSON object and exits 0", async () => {
    const io = capture();
    const code = await main(["check", "examples/notify-team.ts", "--json"], io);
    expect(code).toBe(0);
    const out = JSON.parse(io.out);
    expect(out.program.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(out.diagnostics).toEqual([]);
    expect(out.effects).toEqual([
      {
        op: "email.send_email",
        site: { line: 12, column: 11 },
        args: {
          to: { kind: "const", values: [["alice@example.com", "bob@example.com"]] },
          subject: { kind: "const", values: ["Weekly report ready"] },
          body: { kind: "const", values: ["The weekly report is in /home/user/Sandbox/reports."] },
        },
        count: { min: 1, max: 1 },
      },
    ]);
    expect(out.guarantees.map((g: { status: string }) => g.status)).toEqual(["proven", "proven", "proven"]);
    expect(out.summary[0]).toBe("Every to of email.* is in [alice@example.com, bob@example.com] — proven");
  });

  it("exits 1 on a refuted guarantee and names the call site", async () => {
    const io = capture();
    const code = await main(["check", "examples/refuted.ts", "--json"], io);
    expect(code).toBe(1);
    const out = JSON.parse(io.out);
    expect(out.guarantees).toEqual([
      expect.objectContaining({
        status: "refuted",
        site: { line: 11, column: 11 },
        why: 'fs.write_file at 11:11: path is under /home/user/Sandbox/reports fails ("/home/user/Sandbox/notes/today.md")',
      }),
    ]);
  });

  it("every example is well-formed, and only refuted.ts is refused", async () => {
    for (const name of [
      "notify-team",
      "weekly-report",
      "draft-and-send",
      "fetch-and-post",
      "write-outside-sandbox",
      "team-digest",
    ]) {
      const io = capture();
      expect(await main(["check", `examples/${name}.ts`, "--json"], io), name).toBe(0);
      expect(JSON.parse(io.out).diagnostics, name).toEqual([]);
    }
  });

  it("reads the program from stdin with -, and prints diagnostics for people", async () => {
    const io = capture(
      `import { program } from "countersign";\nexport default program({ rationale: "x", guarantees: [], async main() { eval("1"); } });\n`,
    );
    const code = await main(["check", "-"], io);
    expect(code).toBe(1);
    expect(io.out).toContain("stdin.ts:2:73: error refused_construct: eval is refused: it runs code from a string");
    expect(io.out).toContain("stdin.ts:2:73: error type_error: Cannot find name 'eval'. (TS2304)");
    expect(io.out.split("\n")).toContain("refused");
  });

  it("prints guarantees, effects and the summary in human form", async () => {
    const io = capture();
    expect(await main(["check", "examples/draft-and-send.ts"], io)).toBe(0);
    expect(io.out).toContain("proven   atMostEmails(1) — at most 1 email.send_* call (bound 1)");
    expect(io.out).toContain(
      "effect   email.send_draft at 16:11 (once): draft_id is unknown (from the result of email.draft_email, field $.id — untrusted)",
    );
    expect(io.out).toContain("Summary:");
  });

  it("a missing file is a usage error with the envelope under --json", async () => {
    const io = capture();
    const code = await main(["check", "examples/nope.ts", "--json"], io);
    expect(code).toBe(2);
    expect(JSON.parse(io.out)).toEqual({
      error: { class: "usage_error", message: expect.stringContaining("ENOENT"), retriable: false, boundary: "cli" },
    });
  });

  it("a file that is not UTF-8 is refused, with the hash of its bytes; a BOM is kept in the hashed text", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cs-check-"));
    const text = `import { program } from "countersign";\nexport default program({ rationale: "x", guarantees: [], async main() {} });\n`;
    const bad = join(dir, "bad.ts");
    const badBytes = Buffer.concat([Buffer.from(text), Buffer.from([0xc3, 0x28])]);
    writeFileSync(bad, badBytes);
    const io = capture();
    expect(await main(["check", bad, "--json"], io)).toBe(1);
    const refused = JSON.parse(io.out);
    expect(refused.program.sha256).toBe(createHash("sha256").update(badBytes).digest("hex"));
    expect(refused.diagnostics).toEqual([
      {
        severity: "error",
        code: "invalid_program",
        message: "the program is not valid UTF-8: a program must be UTF-8 text",
        line: 1,
        column: 1,
      },
    ]);
    const bom = join(dir, "bom.ts");
    const bytes = Buffer.from(`\uFEFF${text}`);
    writeFileSync(bom, bytes);
    const ok = capture();
    expect(await main(["check", bom, "--json"], ok)).toBe(0);
    expect(JSON.parse(ok.out).program.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
  });

  it("reads stdin as bytes: invalid UTF-8 there is refused too, with the hash of the bytes", async () => {
    const bytes = Buffer.concat([
      Buffer.from(`import { program } from "countersign";\n// `),
      Buffer.from([0xff]),
      Buffer.from("\n"),
    ]);
    const io = capture(bytes);
    expect(await main(["check", "-", "--json"], io)).toBe(1);
    const out = JSON.parse(io.out);
    expect(out.program).toEqual({ sha256: createHash("sha256").update(bytes).digest("hex"), entry: "stdin.ts" });
    expect(out.diagnostics.map((d: { code: string }) => d.code)).toEqual(["invalid_program"]);
  });

  it("takes the analysis budget as flags: a program over --max-bytes is refused before it is parsed", async () => {
    const io = capture();
    expect(await main(["check", "examples/notify-team.ts", "--json", "--max-bytes", "100"], io)).toBe(1);
    const out = JSON.parse(io.out);
    expect(out.diagnostics).toEqual([
      expect.objectContaining({ code: "analysis_budget_exceeded", line: 1, column: 1 }),
    ]);
    expect(out.diagnostics[0].message).toMatch(/more than the analysis's limit of 100 bytes/);
    const steps = capture();
    expect(await main(["check", "examples/notify-team.ts", "--json", "--budget-steps", "5"], steps)).toBe(1);
    expect(JSON.parse(steps.out).diagnostics).toEqual([
      expect.objectContaining({
        code: "analysis_budget_exceeded",
        message: expect.stringMatching(/budget of 5 steps/),
      }),
    ]);
    const roomy = capture();
    expect(
      await main(
        [
          "check",
          "examples/notify-team.ts",
          "--json",
          "--budget-ms",
          "60000",
          "--budget-steps",
          "10000000",
          "--max-bytes",
          "1000000",
        ],
        roomy,
      ),
    ).toBe(0);
  });

  it("a budget flag that is not a positive integer is a usage error", async () => {
    for (const [flag, value] of [
      ["--budget-ms", "0"],
      ["--budget-steps", "1.5"],
      ["--max-bytes", "1e9"],
      ["--budget-ms", "soon"],
    ] as const) {
      const io = capture();
      expect(await main(["check", "examples/notify-team.ts", flag, value], io)).toBe(2);
      expect(io.err).toBe(`countersign: usage_error: ${flag} must be a positive integer, not "${value}"\n`);
    }
  });

  it("no file is a usage error", async () => {
    const io = capture();
    expect(await main(["check"], io)).toBe(2);
    expect(io.err).toBe("countersign: usage_error: missing FILE: countersign check FILE (or - for stdin)\n");
  });

  it("takes another manifest directory", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cs-check-"));
    const file = join(dir, "p.ts");
    writeFileSync(
      file,
      `import { program } from "countersign";\nimport { sendEmail } from "trusted/email";\nexport default program({ rationale: "x", guarantees: [], async main() {} });\n`,
    );
    const io = capture();
    const code = await main(["check", file, "--json", "--manifests", join(dir, "missing")], io);
    expect(code).toBe(2);
    expect(JSON.parse(io.out).error.class).not.toBe("internal_error");
  });
});

describe("countersign check, the program's strings on the terminal", () => {
  // An OSC 52 clipboard write, a C1 CSI, a bidi override and a zero-width space, in a value the
  // facts quote (the mail's subject) and the summary repeats.
  const EVIL = "\x1b]52;c;ZXZpbA==\x07\u009b2J\u202egpj.exe\u200b";
  const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;
  const source = `import { program } from "countersign";
import { sendEmail } from "trusted/email";

export default program({
  rationale: "Say hello.",
  async main() {
    await sendEmail({ to: ["bob@example.com"], subject: ${JSON.stringify(EVIL)}, body: "hi" });
  },
});
`;

  it("the text shows them made visible; the JSON escapes them and keeps them exactly", async () => {
    const text = capture(source);
    expect(await main(["check", "-"], text)).toBe(0);
    expect(text.out).not.toMatch(RAW);
    // Values are shown as JSON (C0 controls escaped there); the rest is made visible.
    expect(text.out).toContain('subject = "\\u001b]52;c;ZXZpbA==\\u0007⟨U+009B⟩2J⟨U+202E⟩gpj.exe⟨U+200B⟩"');
    const json = capture(source);
    expect(await main(["check", "-", "--json"], json)).toBe(0);
    expect(json.out).not.toMatch(RAW);
    expect(JSON.parse(json.out).effects[0].args.subject).toEqual({ kind: "const", values: [EVIL] });
  });

  it("an error message quoting the command line is made visible too", async () => {
    const io = capture();
    expect(await main(["check", "a\u202eb.ts", "extra\x1b[2J"], io)).toBe(2);
    expect(io.err).not.toMatch(RAW);
    expect(io.err).toContain("extra⟨U+001B⟩[2J");
  });
});

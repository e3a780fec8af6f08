import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { ErrorEnvelope } from "../../src/model/errors.js";
import { authorityPath } from "../../src/store/index.js";
import { jwksPath } from "../../src/store/index.js";
import { openKeyring } from "../../src/store/index.js";
import { issueReceipt } from "../../src/receipt/issue.js";
import { isolatedEnv } from "../support/isolated-env.js";
import { input, PROGRAM, tempHome } from "./fixtures.js";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(argv: string[], home: string, stdin = ""): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    readStdin: async () => stdin,
    env: isolatedEnv({ COUNTERSIGN_HOME: home }),
    cwd: home,
  };
  const code = await main(argv, io);
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** A data directory with its local authority, a program file, and a receipt for it issued now. */
async function setup(overrides: Parameters<typeof input>[0] = {}) {
  const home = tempHome();
  expect((await run(["keys", "list"], home)).code).toBe(0);
  writeFileSync(join(home, "program.ts"), PROGRAM);
  const token = await issueReceipt(input({ issuer: "countersign-local", ...overrides }), await openKeyring(home));
  return { home, token };
}

describe("countersign keys", () => {
  it("list makes the key and authority.json on first use", async () => {
    const home = tempHome();
    const r = await run(["keys", "list", "--json"], home);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.issuer).toBe("countersign-local");
    expect(out.keys).toEqual([
      { kid: out.active, status: "active", created: expect.any(String), retired: null, expires: null },
    ]);
    expect(JSON.parse(readFileSync(authorityPath(home), "utf8"))).toEqual({
      issuer: "countersign-local",
      jwks_path: "keys/jwks.json",
    });
  });

  it("rotate shows the old key retired with the time it leaves the JWKS, and keeps a custom issuer", async () => {
    const home = tempHome();
    await run(["keys", "list"], home);
    writeFileSync(authorityPath(home), JSON.stringify({ issuer: "my-authority", jwks_path: "keys/jwks.json" }));
    const r = await run(["keys", "rotate", "--json"], home);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.issuer).toBe("my-authority");
    expect(out.keys.map((k: { status: string }) => k.status)).toEqual(["retired", "active"]);
    const retired = out.keys[0];
    expect(Date.parse(retired.expires) - Date.parse(retired.retired)).toBe(900_000);
    const text = await run(["keys", "list"], home);
    expect(text.stdout).toMatch(/retired +created .* leaves JWKS /);
    expect(JSON.parse(readFileSync(jwksPath(home), "utf8")).keys).toHaveLength(2);
  });

  it("refuses an unknown subcommand and a loose key file", async () => {
    const home = tempHome();
    expect((await run(["keys", "shred"], home)).code).toBe(2);
    await run(["keys", "list"], home);
    chmodSync(join(home, "keys", "keyring.json"), 0o644);
    const r = await run(["keys", "list", "--json"], home);
    expect(r.code).toBe(2);
    const envelope = ErrorEnvelope.parse(JSON.parse(r.stdout));
    expect(envelope.error).toMatchObject({
      class: "config_error",
      details: { file: join(home, "keys", "keyring.json") },
    });
  });
});

describe("countersign receipt verify", () => {
  it("prints the claims and grants of a valid receipt, with the local authority by default", async () => {
    const { home, token } = await setup();
    const r = await run(["receipt", "verify", token, "--program", "program.ts"], home);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("receipt valid");
    expect(r.stdout).toContain("email.send_email via email");
    expect(r.stdout).toMatch(/to: .*bob@example\.com/);
    const json = JSON.parse(
      (await run(["receipt", "verify", token, "--program", "program.ts", "--json"], home)).stdout,
    );
    expect(json).toMatchObject({ valid: true, claims: { sub: "req-1", decision: "approved_once" } });
  });

  it("a grant quoting hostile program text is made visible in text and escaped in JSON", async () => {
    const evil = "\x1b]52;c;ZXZpbA==\x07\u009b2J\u202egpj.exe";
    const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;
    const grant = {
      op: "email.send_email",
      connector: { name: "email", sha256: "a".repeat(64) },
      args: { subject: { eq: evil } },
      count: { max: 1 },
    };
    const { home, token } = await setup({ grants: [grant] });
    const r = await run(["receipt", "verify", token, "--program", "program.ts"], home);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(raw);
    expect(r.stdout).toContain("⟨U+009B⟩2J⟨U+202E⟩gpj.exe");
    const j = await run(["receipt", "verify", token, "--program", "program.ts", "--json"], home);
    expect(j.stdout).not.toMatch(raw);
    expect(JSON.parse(j.stdout).claims.grants[0].args.subject).toEqual({ eq: evil });
  });

  it("prints the limits across grants", async () => {
    const { home, token } = await setup({
      across: [{ ops: ["email.send_email", "fs.write_file"], count: { max: 2 } }],
    });
    const r = await run(["receipt", "verify", token, "--program", "program.ts"], home);
    expect(r.stdout).toContain("  across email.send_email, fs.write_file: at most 2 calls together");
  });

  it("reads the token from stdin with -, and never redeems it", async () => {
    const { home, token } = await setup();
    for (let i = 0; i < 2; i++)
      expect((await run(["receipt", "verify", "-", "--program", "program.ts"], home, token + "\n")).code).toBe(0);
  });

  it("refuses with the precise reason and exit 3", async () => {
    const { home, token } = await setup();
    writeFileSync(join(home, "other.ts"), "export default 1;\n");
    const r = await run(["receipt", "verify", token, "--program", "other.ts", "--json"], home);
    expect(r.code).toBe(3);
    expect(ErrorEnvelope.parse(JSON.parse(r.stdout)).error).toMatchObject({
      class: "receipt_invalid",
      details: { reason: "program_mismatch" },
    });
    const wrongIssuer = await run(
      ["receipt", "verify", token, "--program", "program.ts", "--issuer", "elsewhere"],
      home,
    );
    expect(wrongIssuer.code).toBe(3);
    expect(wrongIssuer.stderr).toContain("bad_issuer");
    expect((await run(["receipt", "verify", "garbage", "--program", "program.ts"], home)).stderr).toContain(
      "malformed",
    );
  });

  it("takes --jwks from a file", async () => {
    const { home, token } = await setup();
    writeFileSync(join(home, "foreign.json"), JSON.stringify({ keys: [] }));
    const r = await run(
      ["receipt", "verify", token, "--program", "program.ts", "--jwks", "foreign.json", "--json"],
      home,
    );
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).error.details.reason).toBe("unknown_kid");
    expect(
      (await run(["receipt", "verify", token, "--program", "program.ts", "--jwks", "keys/jwks.json"], home)).code,
    ).toBe(0);
  });

  it("is a usage error without a program or a token, and a config error without an authority", async () => {
    const { home, token } = await setup();
    expect((await run(["receipt", "verify", token], home)).code).toBe(2);
    expect((await run(["receipt", "verify", "--program", "program.ts"], home)).code).toBe(2);
    expect((await run(["receipt", "issue"], home)).code).toBe(2);
    const bare = tempHome();
    writeFileSync(join(bare, "program.ts"), PROGRAM);
    const r = await run(["receipt", "verify", token, "--program", "program.ts", "--json"], bare);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({ class: "config_error", details: { file: authorityPath(bare) } });
  });

  describe("with a JWKS URL", () => {
    let server: Server;
    let base = "";
    let jwksBody = "";
    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url === "/slow") return; // never answers: held until the server closes
        if (req.url === "/huge") return void res.end(" ".repeat(200 * 1024) + "{}");
        if (req.url === "/missing") return void res.writeHead(404).end();
        res.setHeader("content-type", "application/json").end(jwksBody);
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => {
      server.closeAllConnections();
      server.close();
    });

    it("fetches it, and refuses huge or failing answers as network errors", async () => {
      const { home, token } = await setup();
      jwksBody = readFileSync(jwksPath(home), "utf8");
      expect(
        (await run(["receipt", "verify", token, "--program", "program.ts", "--jwks", `${base}/jwks.json`], home)).code,
      ).toBe(0);
      for (const path of ["/huge", "/missing"]) {
        const r = await run(
          ["receipt", "verify", token, "--program", "program.ts", "--jwks", `${base}${path}`, "--json"],
          home,
        );
        expect(r.code).toBe(2);
        expect(JSON.parse(r.stdout).error.class).toBe("network_error");
      }
    });

    it("gives up on a slow server", async () => {
      const { fetchJwks } = await import("../../src/config/fetch-jwks.js");
      await expect(fetchJwks(`${base}/slow`, { timeoutMs: 200 })).rejects.toMatchObject({
        class: "network_error",
        message: expect.stringContaining("200 ms"),
      });
    });
  });
});

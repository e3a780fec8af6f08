import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveCapabilities } from "../../src/connector/capabilities.js";
import { connectorContext, loadConnections } from "../../src/config/index.js";
import { dataDirWith, runAction, shippedManifests, tempDir } from "./fixtures.js";

const set = shippedManifests();
const email = set.connectors.get("email")!;
const fs = set.connectors.get("fs")!;
const http = set.connectors.get("http")!;

function configError(toml: string, connector = email, token?: string) {
  const dir = dataDirWith(toml, token);
  const file = join(dir, "connections.toml");
  try {
    resolveCapabilities(connector, loadConnections(dir));
  } catch (err) {
    return { err, file };
  }
  throw new Error("expected a config_error");
}

describe("connections.toml", () => {
  it("is required: a missing file is a config_error naming it", () => {
    const dir = tempDir();
    expect(() => connectorContext(dir)).toThrow(
      expect.objectContaining({ class: "config_error", details: { file: join(dir, "connections.toml") } }),
    );
  });

  it("rejects malformed TOML and unknown keys, naming the key", () => {
    const { err: bad, file } = configError("[email\n");
    expect(bad).toMatchObject({ class: "config_error", details: { file } });
    const { err: unknown } = configError(`[email]\nbase_url = "http://127.0.0.1:1"\ntokenfile = "x"\n`);
    expect(unknown).toMatchObject({ class: "config_error", details: { key: "email" } });
    const { err: url } = configError(`[email]\nbase_url = "ftp://x"\n`);
    expect(url).toMatchObject({ class: "config_error", details: { key: "email.base_url" } });
    const { err: creds } = configError(`[email]\nbase_url = "http://u:p@127.0.0.1:1"\n`);
    expect(creds).toMatchObject({ class: "config_error", details: { key: "email.base_url" } });
  });

  it("keeps the user's own address and refuses one that is not a single address", () => {
    const dir = dataDirWith(`[email]\nbase_url = "http://127.0.0.1:1"\naddress = "me@example.com"\n`);
    expect(loadConnections(dir).byConnector.email?.address).toBe("me@example.com");
    for (const bad of ["me", "a@example.com, b@example.com", "Me <me@example.com>"]) {
      const { err } = configError(`[email]\nbase_url = "http://127.0.0.1:1"\naddress = "${bad}"\n`);
      expect(err).toMatchObject({ class: "config_error", details: { key: "email.address", line: 3 } });
    }
  });

  const missing: [string, string, string, typeof email][] = [
    ["the [email] table", `[http]\nhosts = ["api.example.com:443"]\n`, "email", email],
    ["email.base_url", `[email]\ntoken_file = "TOKEN_FILE"\n`, "email.base_url", email],
    ["email.token_file", `[email]\nbase_url = "http://127.0.0.1:1"\n`, "email.token_file", email],
    ["fs.roots", `[fs]\n`, "fs.roots", fs],
    ["an existing fs root", `[fs]\nroots = ["/no/such/dir"]\n`, "fs.roots", fs],
    ["http.hosts", `[http]\n`, "http.hosts", http],
  ];
  for (const [what, toml, key, connector] of missing) {
    it(`names ${what} when it is missing`, () => {
      const { err, file } = configError(toml, connector);
      expect(err).toMatchObject({ class: "config_error", boundary: "connector", details: { file, key } });
      expect((err as Error).message).toContain(`${file}: ${key}: `);
    });
  }

  it("refuses an empty or missing token file without showing any token", () => {
    const { err: empty } = configError(
      `[email]\nbase_url = "http://127.0.0.1:1"\ntoken_file = "TOKEN_FILE"\n`,
      email,
      " ",
    );
    expect(empty).toMatchObject({
      class: "config_error",
      details: { key: "email.token_file" },
      message: expect.stringMatching(/is empty$/),
    });
    const { err: absent } = configError(`[email]\nbase_url = "http://127.0.0.1:1"\ntoken_file = "/no/such/token"\n`);
    expect(absent).toMatchObject({
      class: "config_error",
      message: expect.stringMatching(/cannot read the token file \/no\/such\/token$/),
    });
  });

  it("makes a base_url the connector's only allowed host and formats the credential", async () => {
    const dir = dataDirWith(`[email]\nbase_url = "http://127.0.0.1:8025/prefix"\ntoken_file = "TOKEN_FILE"\n`);
    const caps = resolveCapabilities(email, loadConnections(dir));
    expect([...caps.hosts]).toEqual(["127.0.0.1:8025"]);
    expect(caps.credential).toMatchObject({ header: "Authorization", renew: null });
    await expect(caps.credential!.value()).resolves.toBe("Bearer secret-token");
  });

  it("fails an action before any plugin runs when its connection is incomplete", async () => {
    const dir = dataDirWith(`[http]\nhosts = ["api.example.com:443"]\n`);
    writeFileSync(join(dir, "unused"), "");
    await expect(
      runAction(set, "email.send_email", { to: ["a@b.c"], subject: "s", body: "b" }, connectorContext(dir)),
    ).rejects.toMatchObject({
      class: "config_error",
      details: { key: "email" },
    });
  });
});

import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { authorityPath, loadLocalAuthority, writeLocalAuthority } from "../../src/store/index.js";
import { jwks } from "../../src/receipt/jwks.js";
import { openKeyring } from "../../src/store/index.js";
import { expectRefused, NOW, tempHome } from "./fixtures.js";

describe("authority.json", () => {
  it("points the local runner at the local keyring's JWKS", async () => {
    const home = tempHome();
    const keyring = await openKeyring(home, NOW);
    expect(writeLocalAuthority(home)).toEqual({ issuer: "countersign-local", jwks_path: "keys/jwks.json" });
    expect(loadLocalAuthority(home)).toEqual({ issuer: "countersign-local", jwks: jwks(keyring, NOW) });
  });

  it("may hold the JWKS inline", () => {
    const home = tempHome();
    const inline = { keys: [{ kty: "OKP", crv: "Ed25519", kid: "k1", x: "A".repeat(43) }] };
    writeFileSync(authorityPath(home), JSON.stringify({ issuer: "remote", jwks: inline }));
    expect(loadLocalAuthority(home)).toEqual({ issuer: "remote", jwks: inline });
  });

  it("refuses a file with both, neither, an unknown member, or bad JSON, naming it", async () => {
    const home = tempHome();
    const file = authorityPath(home);
    for (const content of [
      { issuer: "x", jwks_path: "keys/jwks.json", jwks: { keys: [] } },
      { issuer: "x" },
      { issuer: "x", jwks_path: "a", extra: 1 },
      "{ not json",
    ]) {
      writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
      const err = await expectRefused(() => loadLocalAuthority(home), "config_error");
      expect(err.details).toEqual({ file });
    }
  });

  it("is missing: a config error that says how to make one", async () => {
    const err = await expectRefused(() => loadLocalAuthority(tempHome()), "config_error");
    expect(err.message).toContain("countersign keys list");
  });
});

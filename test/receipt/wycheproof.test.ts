// Third-party vectors (C2SP Wycheproof), vendored in ./vectors/wycheproof with their licence.
import { readFileSync } from "node:fs";
import { webcrypto } from "node:crypto";
import { fileURLToPath } from "node:url";
import { importJWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { CountersignError } from "../../src/model/errors.js";
import { verifyEd25519 } from "../../src/receipt/ed25519.js";
import { jwks } from "../../src/receipt/jwks.js";
import type { Keyring } from "../../src/receipt/keyring.js";
import { importJwks } from "../../src/receipt/verification-keys.js";
import { verifyReceipt } from "../../src/receipt/verify.js";
import { ISSUER, keyringIn, NOW, PROGRAM } from "./fixtures.js";

function load<T>(name: string): T {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`./vectors/wycheproof/${name}`, import.meta.url)), "utf8")) as T;
}

interface EddsaFile {
  numberOfTests: number;
  testGroups: {
    publicKeyJwk: { x: string };
    tests: { tcId: number; msg: string; sig: string; result: "valid" | "invalid" }[];
  }[];
}
interface JwsFile {
  numberOfTests: number;
  testGroups: {
    public?: Record<string, unknown>;
    tests: { tcId: number; comment: string; jws: string; result: string }[];
  }[];
}

describe("Wycheproof ed25519_test.json", () => {
  const file = load<EddsaFile>("ed25519_test.json");
  const cases = file.testGroups.flatMap((g) => g.tests.map((t) => ({ x: g.publicKeyJwk.x, ...t })));

  it("holds every case", () => {
    expect(cases.length).toBe(file.numberOfTests);
    expect(cases.length).toBe(151);
  });

  it("the verifier's own key import and Ed25519 verify accept exactly the valid cases", () => {
    const wrong = cases.filter((c) => {
      const key = importJwks({ keys: [{ kty: "OKP", crv: "Ed25519", kid: "k", x: c.x }] }).get("k");
      const ok = key !== undefined && verifyEd25519(key, Buffer.from(c.msg, "hex"), Buffer.from(c.sig, "hex"));
      return ok !== (c.result === "valid");
    });
    expect(wrong.map((c) => c.tcId)).toEqual([]);
    expect(cases.filter((c) => c.result === "valid").length).toBeGreaterThan(0);
  });

  it("jose's WebCrypto path agrees with it on every case", async () => {
    const wrong: number[] = [];
    for (const c of cases) {
      const key = await importJWK({ kty: "OKP", crv: "Ed25519", x: c.x }, "EdDSA");
      const ok = await webcrypto.subtle
        .verify("Ed25519", key as webcrypto.CryptoKey, Buffer.from(c.sig, "hex"), Buffer.from(c.msg, "hex"))
        .catch(() => false);
      if (ok !== (c.result === "valid")) wrong.push(c.tcId);
    }
    expect(wrong).toEqual([]);
  });
});

describe("Wycheproof json_web_signature_test.json", () => {
  const file = load<JwsFile>("json_web_signature_test.json");
  let keys: Keyring;
  beforeAll(async () => {
    keys = await keyringIn();
  });

  /** What the token's own header says it is, so the refusal can be checked for the right reason. */
  function expectedReason(jws: string): string {
    const parts = jws.split(".");
    const canonical = (part: string) =>
      /^[A-Za-z0-9_-]*$/.test(part) && Buffer.from(part, "base64url").toString("base64url") === part;
    if (parts.length !== 3 || parts[0] === "" || parts[1] === "" || !parts.every(canonical)) return "malformed";
    try {
      const header = JSON.parse(Buffer.from(parts[0]!, "base64url").toString("utf8"));
      return header.alg === "EdDSA" ? "bad_signature" : "bad_alg";
    } catch {
      return "malformed";
    }
  }

  it("refuses every case, valid JWS or not, with receipt_invalid for the reason its header shows", async () => {
    const cases = file.testGroups.flatMap((g) => g.tests.map((t) => ({ group: g, ...t })));
    expect(cases.length).toBe(file.numberOfTests);
    const reasons = new Map<string, number>();
    for (const c of cases) {
      // Give the verifier the very key the vector was made with when it is public, else ours.
      const publicKey = c.group.public;
      const trusted =
        publicKey !== undefined && !("d" in publicKey) ? { keys: [{ kid: "kid", ...publicKey }] } : jwks(keys, NOW);
      const err = await verifyReceipt(c.jws, { jwks: trusted, issuer: ISSUER, programBytes: PROGRAM, now: NOW }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, `tcId ${c.tcId} (${c.comment}) was accepted`).toBeInstanceOf(CountersignError);
      const { class: cls, details } = err as CountersignError;
      expect({ tcId: c.tcId, class: cls, reason: details?.reason }).toEqual({
        tcId: c.tcId,
        class: "receipt_invalid",
        reason: expectedReason(c.jws),
      });
      reasons.set(String(details?.reason), (reasons.get(String(details?.reason)) ?? 0) + 1);
    }
    expect(reasons.get("bad_alg")).toBeGreaterThan(300); // the bulk: RS/PS/ES/HS and alg none
  });
});

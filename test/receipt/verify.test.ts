import { generateKeyPairSync } from "node:crypto";
import { CompactSign, compactVerify, importJWK } from "jose";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_RECEIPT_BYTES, RECEIPT_TYP } from "../../src/model/receipt.js";
import { openKeyring } from "../../src/store/index.js";
import { jwks } from "../../src/receipt/jwks.js";
import { parseCompact } from "../../src/receipt/parse-compact.js";
import type { Keyring } from "../../src/receipt/keyring.js";
import { importJwks } from "../../src/receipt/verification-keys.js";
import { verifyReceipt } from "../../src/receipt/verify.js";
import {
  claimsOf,
  expectRefused,
  GRANTS,
  headerOf,
  ISSUER,
  issue,
  keyringIn,
  NOW,
  NOW_S,
  PROGRAM,
  signRaw,
  tempHome,
} from "./fixtures.js";

let keys: Keyring;
let good: string;
const opts = (over: { now?: Date; issuer?: string; programBytes?: Uint8Array } = {}) => ({
  jwks: jwks(keys, NOW),
  issuer: ISSUER,
  programBytes: PROGRAM,
  now: NOW,
  ...over,
});
const refused = (token: string, reason: string, over = {}) =>
  expectRefused(() => verifyReceipt(token, opts(over)), "receipt_invalid", reason);
const attacker = generateKeyPairSync("ed25519");
const b64 = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url");

beforeAll(async () => {
  keys = await keyringIn();
  good = await issue(keys);
});

/** The good receipt's header and claims with one change, signed by the authority's own key. */
function resigned(header: Record<string, unknown>, claims: Record<string, unknown> = {}): string {
  return signRaw({ ...headerOf(good), ...header }, { ...claimsOf(good), ...claims }, keys.active.privateKey);
}

describe("verifyReceipt accepts", () => {
  it("a receipt just issued, and exposes its claims", async () => {
    const verified = await verifyReceipt(good, opts());
    expect(verified.kid).toBe(keys.active.kid);
    expect(verified.claims).toMatchObject({
      iss: ISSUER,
      aud: "countersign-runner",
      sub: "req-1",
      decision: "approved_once",
      approver: "alice",
    });
    expect(verified.claims.grants).toEqual(GRANTS);
    expect(Object.isFrozen(verified.claims.grants[0]!.args)).toBe(true);
  });

  it("a grant that looks into a JSON body (json, at), as a deny rule's guard leaves it", async () => {
    const body = { not: { not: { json: { at: { path: "$.items[*].to", is: { in: ["ok@example.com"] } } } } } };
    const grants = [
      { op: "http.post", connector: { name: "http", sha256: "d".repeat(64) }, args: { body }, count: { max: 1 } },
    ];
    const verified = await verifyReceipt(await issue(keys, { grants }), opts());
    expect(verified.claims.grants[0]!.args).toEqual({ body });
  });

  it("with the JWKS imported once, and it is an ordinary JWS jose verifies too", async () => {
    const imported = importJwks(jwks(keys, NOW));
    await expect(verifyReceipt(good, { ...opts(), jwks: imported })).resolves.toBeDefined();
    const { protectedHeader } = await compactVerify(good, await importJWK(keys.active.publicJwk, "EdDSA"));
    expect(protectedHeader).toEqual({ alg: "EdDSA", typ: RECEIPT_TYP, kid: keys.active.kid });
  });

  it("within the 5 s clock tolerance on either side", async () => {
    await expect(verifyReceipt(good, opts({ now: new Date((NOW_S - 5) * 1000) }))).resolves.toBeDefined();
    await expect(verifyReceipt(good, opts({ now: new Date((NOW_S + 300 + 4) * 1000) }))).resolves.toBeDefined();
  });
});

describe("verifyReceipt refuses", () => {
  it("garbage and broken compact forms as malformed", async () => {
    for (const token of [
      "",
      "garbage",
      "a.b",
      "a.b.c.d",
      `${b64({ alg: "EdDSA" })}..sig`,
      "!!!.e30.AAAA",
      `${b64("[1]")}.e30.AAAA`,
      `${b64("not json")}.e30.AAAA`,
    ]) {
      await refused(token, "malformed");
    }
    await expectRefused(() => verifyReceipt(42 as unknown as string, opts()), "receipt_invalid", "malformed");
  });

  it("a non-canonical base64url encoding of the same bytes", async () => {
    const [h, p, s] = good.split(".") as [string, string, string];
    // 64 bytes take 86 characters; the last one carries 4 unused bits, so its neighbour decodes alike
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const twin = s.slice(0, -1) + alphabet[alphabet.indexOf(s.at(-1)!) ^ 1];
    expect(Buffer.from(twin, "base64url").equals(Buffer.from(s, "base64url"))).toBe(true);
    await refused(`${h}.${p}.${twin}`, "malformed");
  });

  it("canonical base64url is read from the text: exactly the parts whose bytes encode back to them pass", () => {
    const [h, p] = good.split(".") as [string, string, string];
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 12 }).map((cs) => cs.join("")),
        (s) => {
          const canonical = Buffer.from(s, "base64url").toString("base64url") === s;
          let passed = true;
          try {
            parseCompact(`${h}.${p}.${s}`);
          } catch (err) {
            expect((err as Error).message).toMatch(/the signature is not canonical base64url/);
            passed = false;
          }
          expect(passed, s).toBe(canonical);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("an oversized token before reading it", async () => {
    await refused("a".repeat(MAX_RECEIPT_BYTES + 1), "too_large");
    // Issuing refuses such a receipt, so sign one by hand.
    const grants = Array.from({ length: 500 }, (_, i) => ({ ...GRANTS[0]!, op: `email.op_${i}` }));
    const big = signRaw(headerOf(good), { ...claimsOf(good), grants }, keys.active.privateKey);
    expect(big.length).toBeGreaterThan(MAX_RECEIPT_BYTES);
    await refused(big, "too_large");
  });

  it("alg none, an empty header, with or without a signature", async () => {
    await refused("e30.e30.", "bad_alg");
    const [, p, s] = good.split(".");
    await refused(`${b64({ ...headerOf(good), alg: "none" })}.${p}.`, "bad_alg");
    await refused(`${b64({ ...headerOf(good), alg: "none" })}.${p}.${s}`, "bad_alg");
    await refused(`${b64({ typ: RECEIPT_TYP, kid: keys.active.kid })}.${p}.${s}`, "bad_alg");
    await refused(resigned({ alg: "Ed25519" }), "bad_alg");
  });

  it("HS256 keyed with the public key's bytes (algorithm confusion)", async () => {
    const secret = Buffer.from(keys.active.publicJwk.x, "base64url");
    const token = await new CompactSign(Buffer.from(JSON.stringify(claimsOf(good))))
      .setProtectedHeader({ alg: "HS256", typ: RECEIPT_TYP, kid: keys.active.kid })
      .sign(secret);
    await refused(token, "bad_alg");
  });

  it("an embedded jwk, jku, x5u, x5c, crit and b64 header, each", async () => {
    const attackerJwk = attacker.publicKey.export({ format: "jwk" });
    const forgeries: Record<string, unknown>[] = [
      { jwk: attackerJwk },
      { jku: "https://evil.example/jwks.json" },
      { x5u: "https://evil.example/cert.pem" },
      { x5c: ["MIIB"] },
      { crit: ["exp"], exp: 1 },
      { crit: [] },
      { b64: false },
      { cty: "JWT" },
    ];
    for (const extra of forgeries) {
      // signed with the authority's own key: the parameter alone is the fault
      const err = await refused(resigned(extra), "bad_header");
      expect(err.message).toContain(JSON.stringify(Object.keys(extra)[0]));
    }
    // the classic: the attacker's key, embedded, signing the attacker's claims
    await refused(
      signRaw({ ...headerOf(good), jwk: attackerJwk }, { ...claimsOf(good), grants: [] }, attacker.privateKey),
      "bad_header",
    );
  });

  it("a __proto__ header member", async () => {
    const header = `{"alg":"EdDSA","typ":"${RECEIPT_TYP}","kid":"${keys.active.kid}","__proto__":{"x":1}}`;
    await refused(signRaw(header, claimsOf(good), keys.active.privateKey), "malformed"); // no part of a receipt may hold the name
    // spelled with escapes, in the header or deep in the claims (signed with the authority's key)
    const escaped = `{"alg":"EdDSA","typ":"${RECEIPT_TYP}","kid":"${keys.active.kid}","\\u005f_proto\\u005F_":{"x":1}}`;
    await refused(signRaw(escaped, claimsOf(good), keys.active.privateKey), "malformed");
    const claims = JSON.stringify(claimsOf(good)).replace(/^\{/, '{"x":[{"\\u005f\\u005fproto__":{}}],');
    await refused(signRaw(headerOf(good), claims, keys.active.privateKey), "bad_claims"); // claims that are not a plain JSON object
  });

  it("a wrong or missing typ", async () => {
    await refused(resigned({ typ: "JWT" }), "bad_typ");
    const { typ: _typ, ...noTyp } = headerOf(good);
    await refused(signRaw(noTyp, claimsOf(good), keys.active.privateKey), "bad_typ");
  });

  it("a kid not in the JWKS, a missing kid, or a kid naming a non-Ed25519 key", async () => {
    await refused(resigned({ kid: "nobody" }), "unknown_kid");
    const { kid: _kid, ...noKid } = headerOf(good);
    await refused(signRaw(noKid, claimsOf(good), keys.active.privateKey), "unknown_kid");
    const rsa = { kty: "RSA", kid: keys.active.kid, n: "AQAB", e: "AQAB" };
    await expectRefused(
      () => verifyReceipt(good, { ...opts(), jwks: { keys: [rsa] } }),
      "receipt_invalid",
      "unknown_kid",
    );
    const wrongUse = { ...keys.active.publicJwk, use: "enc" };
    await expectRefused(
      () => verifyReceipt(good, { ...opts(), jwks: { keys: [wrongUse] } }),
      "receipt_invalid",
      "unknown_kid",
    );
    const twice = [
      keys.active.publicJwk,
      { ...keys.active.publicJwk, x: attacker.publicKey.export({ format: "jwk" }).x },
    ];
    await expectRefused(
      () => verifyReceipt(good, { ...opts(), jwks: { keys: twice } }),
      "receipt_invalid",
      "unknown_kid",
    );
  });

  it("a valid signature from another key under the authority's kid", async () => {
    await refused(signRaw(headerOf(good), claimsOf(good), attacker.privateKey), "bad_signature");
  });

  it("a key that has left the JWKS", async () => {
    const other = await openKeyring(tempHome(), NOW);
    await expectRefused(
      () => verifyReceipt(good, { ...opts(), jwks: jwks(other, NOW) }),
      "receipt_invalid",
      "unknown_kid",
    );
  });

  it("a swapped payload, a flipped signature bit, a truncated signature", async () => {
    const other = await issue(keys, { requestId: "req-2" });
    const [h, , s] = good.split(".") as [string, string, string];
    await refused(`${h}.${other.split(".")[1]}.${s}`, "bad_signature");
    const sig = Buffer.from(s, "base64url");
    sig[10]! ^= 1;
    await refused(`${h}.${good.split(".")[1]}.${sig.toString("base64url")}`, "bad_signature");
    await refused(`${h}.${good.split(".")[1]}.${sig.subarray(0, 63).toString("base64url")}`, "bad_signature");
    await refused(`${h}.${good.split(".")[1]}.`, "bad_signature");
  });

  it("claims that do not fit the schema", async () => {
    await refused(resigned({}, { extra: 1 }), "bad_claims");
    await refused(resigned({}, { approver: undefined }), "bad_claims"); // approved_once needs one
    await refused(resigned({}, { decision: "auto_approved" }), "bad_claims"); // ...and auto_approved has none
    await refused(resigned({}, { decision: "rejected" }), "bad_claims");
    await refused(resigned({}, { grants: [{ ...GRANTS[0]!, op: "email.*" }] }), "bad_claims");
    await refused(resigned({}, { grants: [GRANTS[0], GRANTS[0]] }), "bad_claims");
    await refused(resigned({}, { grants: [{ ...GRANTS[0]!, extra: true }] }), "bad_claims");
    // Limits across grants: only over granted ops, with a count or distinct, nothing else.
    await refused(
      resigned({}, { across: [{ ops: ["email.send_email", "email.delete_all"], count: { max: 9 } }] }),
      "bad_claims",
    );
    await refused(
      resigned({}, { across: [{ ops: ["email.send_email"], count: { max: 1 }, extra: true }] }),
      "bad_claims",
    );
    await refused(resigned({}, { across: [{ ops: ["email.send_email"] }] }), "bad_claims");
    await refused(resigned({}, { across: undefined }), "bad_claims");
    await refused(resigned({}, { jti: "short" }), "bad_claims");
    await refused(resigned({}, { nbf: NOW_S + 301, exp: NOW_S + 300 }), "bad_claims");
    await refused(signRaw(headerOf(good), "not json", keys.active.privateKey), "bad_claims");
  });

  it("a wrong issuer or audience", async () => {
    await refused(good, "bad_issuer", { issuer: "someone-else" });
    await refused(resigned({}, { aud: "another-runner" }), "bad_audience");
  });

  it("an expired receipt, from the end of the tolerance on", async () => {
    await refused(good, "expired", { now: new Date((NOW_S + 300 + 5) * 1000) });
    await refused(await issue(keys, {}, new Date(NOW.getTime() - 400_000)), "expired");
  });

  it("a receipt not yet valid, beyond the tolerance", async () => {
    await refused(await issue(keys, {}, new Date(NOW.getTime() + 60_000)), "not_yet_valid");
    await refused(good, "not_yet_valid", { now: new Date((NOW_S - 5.001) * 1000) });
  });

  it("a two-hour lifetime, and 901 s", async () => {
    await refused(resigned({}, { exp: NOW_S + 7200 }), "lifetime_too_long");
    await refused(resigned({}, { exp: NOW_S + 901 }), "lifetime_too_long");
    await expect(verifyReceipt(resigned({}, { exp: NOW_S + 900 }), opts())).resolves.toBeDefined();
  });

  it("another program's bytes, even one byte more", async () => {
    await refused(good, "program_mismatch", { programBytes: new TextEncoder().encode("export default 1;\n") });
    await refused(good, "program_mismatch", { programBytes: new Uint8Array([...PROGRAM, 10]) });
  });

  it("in the documented order: the first failing check names the reason", async () => {
    // expired and for another program: expiry is checked first
    await refused(good, "expired", { now: new Date((NOW_S + 1000) * 1000), programBytes: new Uint8Array() });
    // bad typ and unknown kid: typ first
    await refused(resigned({ typ: "JWT", kid: "nobody" }), "bad_typ");
  });

  it("a JWKS that holds private key material", async () => {
    const leaked = { ...keys.active.publicJwk, d: "A".repeat(43) };
    await expectRefused(() => verifyReceipt(good, { ...opts(), jwks: { keys: [leaked] } }), "config_error");
  });
});

// Fuzz receipt verification: a mutated token, claims re-signed with a change, or a mutated JWKS
// end as a typed refusal, or (claims only) as a receipt that still passes every check. Never a
// crash, never an accept the checks would not give.
import { generateKeyPairSync } from "node:crypto";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { CountersignError } from "../../src/model/errors.js";
import { MAX_LIFETIME_SECONDS, RECEIPT_AUDIENCE, type Jwks } from "../../src/model/receipt.js";
import { importJwks, jwks, verifyReceipt, type Keyring } from "../../src/receipt/index.js";
import {
  claimsOf,
  headerOf,
  ISSUER,
  issue,
  keyringIn,
  NOW,
  NOW_S,
  PROGRAM,
  PROGRAM_SHA,
  signRaw,
} from "../receipt/fixtures.js";
import { applyEdits, fuzzParameters, fuzzTimeout, textEdit } from "./fuzz.js";
import { applyJsonEdit, jsonEdit } from "./json-edit.js";

let keys: Keyring;
let good: string;
let publicJwks: Jwks;
const attacker = generateKeyPairSync("ed25519").privateKey;

beforeAll(async () => {
  keys = await keyringIn();
  good = await issue(keys);
  publicJwks = jwks(keys, NOW);
});

/** verifyReceipt's outcome: the claims it accepted, or the typed refusal; anything else fails the test. */
async function outcome(
  token: string,
  keySet: Jwks | ReturnType<typeof importJwks> = publicJwks,
): Promise<{ claims: Record<string, any> } | { refused: CountersignError }> {
  try {
    const verified = await verifyReceipt(token, { jwks: keySet, issuer: ISSUER, programBytes: PROGRAM, now: NOW });
    return { claims: verified.claims };
  } catch (err) {
    expect(err).toBeInstanceOf(CountersignError);
    expect((err as CountersignError).class).toBe("receipt_invalid");
    expect((err as CountersignError).details?.reason).toEqual(expect.any(String));
    return { refused: err as CountersignError };
  }
}

const B64URL = [
  ..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
  ".",
  "..",
  "=",
  "+",
  "/",
  " ",
  "e30",
  "eyJ",
  "AAAA",
];

describe("fuzz: receipts", () => {
  it(
    "a token edited anywhere is refused as receipt_invalid",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(textEdit(B64URL), { minLength: 1, maxLength: 4 }), async (edits) => {
          const token = applyEdits(good, edits);
          fc.pre(token !== good);
          expect(await outcome(token)).toHaveProperty("refused");
        }),
        fuzzParameters(2000),
      );
    },
    fuzzTimeout(60_000),
  );

  it(
    "a token with one part replaced by other bytes or other JSON is refused",
    async () => {
      const part = fc.oneof(
        fc.uint8Array({ maxLength: 96 }).map((b) => Buffer.from(b).toString("base64url")),
        fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v)).toString("base64url")),
      );
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 2 }), part, async (which, replacement) => {
          const parts = good.split(".");
          fc.pre(parts[which] !== replacement);
          parts[which] = replacement;
          expect(await outcome(parts.join("."))).toHaveProperty("refused");
        }),
        fuzzParameters(1500),
      );
    },
    fuzzTimeout(60_000),
  );

  it(
    "header or claims changed and signed by another key under the same kid are refused",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.boolean(), fc.array(jsonEdit, { maxLength: 3 }), async (inHeader, edits) => {
          const header = inHeader ? edits.reduce(applyJsonEdit, headerOf(good)) : headerOf(good);
          const claims = inHeader ? claimsOf(good) : edits.reduce(applyJsonEdit, claimsOf(good));
          expect(await outcome(signRaw(header, claims, attacker))).toHaveProperty("refused");
        }),
        fuzzParameters(1000),
      );
    },
    fuzzTimeout(60_000),
  );

  it(
    "claims changed and signed with the authority's own key are refused, or pass every check the verifier makes",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(jsonEdit, { minLength: 1, maxLength: 3 }), async (edits) => {
          const result = await outcome(
            signRaw(headerOf(good), edits.reduce(applyJsonEdit, claimsOf(good)), keys.active.privateKey),
          );
          if ("refused" in result) return;
          const c = result.claims;
          expect(c.iss).toBe(ISSUER);
          expect(c.aud).toBe(RECEIPT_AUDIENCE);
          expect(c.program.sha256).toBe(PROGRAM_SHA);
          expect(c.nbf).toBeLessThanOrEqual(NOW_S + 5);
          expect(c.exp).toBeGreaterThan(NOW_S - 5);
          expect(c.exp - c.iat).toBeLessThanOrEqual(MAX_LIFETIME_SECONDS);
          for (const grant of c.grants) expect(Object.isFrozen(grant)).toBe(true);
        }),
        fuzzParameters(800),
      );
    },
    fuzzTimeout(60_000),
  );

  it(
    "a mutated JWKS is refused as config_error, or verifies only with the authority's own key",
    async () => {
      const own = keys.active.publicJwk as { kid: string; x: string };
      await fc.assert(
        fc.asyncProperty(fc.array(jsonEdit, { minLength: 1, maxLength: 4 }), async (edits) => {
          const mutated = edits.reduce(applyJsonEdit, publicJwks as unknown);
          let imported: ReturnType<typeof importJwks>;
          try {
            imported = importJwks(mutated);
          } catch (err) {
            expect(err).toMatchObject({ class: "config_error", boundary: "receipt" });
            return;
          }
          const result = await outcome(good, imported);
          if ("refused" in result) return;
          const members = (mutated as { keys: Record<string, unknown>[] }).keys.filter((k) => k.kid === own.kid);
          expect(members).toHaveLength(1);
          expect(members[0]!.x).toBe(own.x);
        }),
        fuzzParameters(1500),
      );
    },
    fuzzTimeout(60_000),
  );
});

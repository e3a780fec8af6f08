// docs/receipts.md is enough to verify a receipt: a verifier written from it alone (doc-verifier.ts,
// jose plus the page's rules) accepts what the real issuer signs, admits and refuses the same
// calls as the library, and refuses every forgery the library refuses, for the same reason.
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CompactSign } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import type { Grant } from "../../src/model/decision.js";
import { CountersignError } from "../../src/model/errors.js";
import type { Json } from "../../src/model/json.js";
import { checkCall } from "../../src/receipt/check-call.js";
import { jwks } from "../../src/receipt/jwks.js";
import type { Keyring } from "../../src/receipt/keyring.js";
import { verifyReceipt } from "../../src/receipt/verify.js";
import { DocRun, Refused, usableKeys, verifyByDoc, type Keys } from "./doc-verifier.js";
import {
  claimsOf,
  EMAIL_SHA,
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
import { openKeyring, rotateKeyring } from "../../src/store/index.js";

let keys: Keyring;
let docKeys: Keys;
let good: string;
const attacker = generateKeyPairSync("ed25519");
const b64 = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url");

beforeAll(async () => {
  keys = await keyringIn();
  docKeys = await usableKeys(jwks(keys, NOW));
  good = await issue(keys);
});

interface Case {
  jwks?: unknown;
  programBytes?: Uint8Array;
  issuer?: string;
  now?: number;
}

/** The reason each verifier refuses `token` for, or "accepted". */
async function verdicts(token: unknown, c: Case = {}): Promise<{ doc: string; library: string }> {
  const programBytes = c.programBytes ?? PROGRAM;
  const issuer = c.issuer ?? ISSUER;
  const now = c.now ?? NOW_S;
  const doc = await verifyByDoc(token, {
    keys: c.jwks === undefined ? docKeys : await usableKeys(c.jwks),
    issuer,
    programBytes,
    nowSeconds: now,
  }).then(
    () => "accepted",
    (e: unknown) => (e instanceof Refused ? e.reason : `threw ${String(e)}`),
  );
  const library = await verifyReceipt(token as string, {
    jwks: (c.jwks ?? jwks(keys, NOW)) as never,
    issuer,
    programBytes,
    now: new Date(now * 1000),
  }).then(
    () => "accepted",
    (e: unknown) => (e instanceof CountersignError ? String(e.details?.reason) : `threw ${String(e)}`),
  );
  return { doc, library };
}

async function expectBoth(token: unknown, reason: string, c: Case = {}): Promise<void> {
  expect(await verdicts(token, c)).toEqual({ doc: reason, library: reason });
}

/** The good receipt's header and claims with one change, signed by the authority's own key. */
function resigned(header: Record<string, unknown>, claims: Record<string, unknown> = {}): string {
  return signRaw({ ...headerOf(good), ...header }, { ...claimsOf(good), ...claims }, keys.active.privateKey);
}

describe("a verifier written from docs/receipts.md", () => {
  it("accepts receipts of the real issuer, with every kind of decision and limit", async () => {
    await expectBoth(good, "accepted");
    await expectBoth(await issue(keys, { decision: "auto_approved", approver: undefined }), "accepted");
    await expectBoth(
      await issue(keys, {
        across: [{ ops: ["email.send_email", "email.list_drafts"], count: { max: 1 }, distinct: "to" }],
      }),
      "accepted",
    );
    await expectBoth(await issue(keys, { grants: RICH_GRANTS }), "accepted");
    await expectBoth(await issue(keys, { lifetimeSeconds: 900 }), "accepted");
  });

  it("accepts within the 5 s tolerance and refuses from its end on", async () => {
    await expectBoth(good, "accepted", { now: NOW_S + 300 + 4.999 });
    await expectBoth(good, "expired", { now: NOW_S + 305 });
    await expectBoth(good, "accepted", { now: NOW_S - 5 });
    await expectBoth(good, "not_yet_valid", { now: NOW_S - 5.001 });
  });

  it("after a key rotation, accepts receipts of the retired key while the JWKS still lists it", async () => {
    const home = tempHome();
    const ring = await openKeyring(home, NOW);
    const before = await issue(ring);
    const rotated = await rotateKeyring(home, NOW);
    const after = await issue(rotated);
    expect(rotated.active.kid).not.toBe(ring.active.kid);
    const published = jwks(rotated, NOW);
    for (const token of [before, after]) await expectBoth(token, "accepted", { jwks: published });
    await expectBoth(after, "unknown_kid", { jwks: jwks(ring, NOW) }); // the old JWKS does not know the new key
  });

  it("refuses the forgeries the library refuses, each for the same reason", async () => {
    const [h, p, s] = good.split(".") as [string, string, string];
    const sig = Buffer.from(s, "base64url");
    sig[10]! ^= 1;
    const hs256 = await new CompactSign(Buffer.from(JSON.stringify(claimsOf(good))))
      .setProtectedHeader({ alg: "HS256", typ: "countersign-receipt+jwt", kid: keys.active.kid })
      .sign(Buffer.from(keys.active.publicJwk.x, "base64url"));
    const { typ: _typ, ...noTyp } = headerOf(good);
    const { kid: _kid, ...noKid } = headerOf(good);
    const last = p.at(-1)!;
    const forgeries: [string, unknown, Case?][] = [
      ["malformed", 42],
      ["malformed", "a.b"],
      ["malformed", `${h}.${p}.${s}.`],
      ["malformed", `${h}=.${p}.${s}`],
      [
        "malformed",
        `${h}.${p.slice(0, -1)}${"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".indexOf(last) + 1) % 64]}.${s}`,
      ],
      ["too_large", "a".repeat(65_537)],
      ["bad_alg", "e30.e30."],
      ["bad_alg", `${b64({ ...headerOf(good), alg: "none" })}.${p}.`],
      ["bad_alg", hs256],
      ["bad_alg", resigned({ alg: "Ed25519" })],
      ...["jwk", "jku", "x5u", "x5c", "crit", "b64", "cty"].map((name): [string, unknown] => [
        "bad_header",
        resigned({ [name]: name === "crit" ? ["exp"] : name === "b64" ? false : "x" }),
      ]),
      [
        "bad_header",
        signRaw(
          { ...headerOf(good), jwk: attacker.publicKey.export({ format: "jwk" }) },
          { ...claimsOf(good), grants: [] },
          attacker.privateKey,
        ),
      ],
      [
        "malformed",
        signRaw(
          `{"alg":"EdDSA","typ":"countersign-receipt+jwt","kid":"${keys.active.kid}","\\u005f_proto__":{}}`,
          claimsOf(good),
          keys.active.privateKey,
        ),
      ],
      ["bad_typ", resigned({ typ: "JWT" })],
      ["bad_typ", signRaw(noTyp, claimsOf(good), keys.active.privateKey)],
      ["unknown_kid", resigned({ kid: "nobody" })],
      ["unknown_kid", signRaw(noKid, claimsOf(good), keys.active.privateKey)],
      [
        "unknown_kid",
        good,
        {
          jwks: {
            keys: [
              keys.active.publicJwk,
              { ...keys.active.publicJwk, x: attacker.publicKey.export({ format: "jwk" }).x },
            ],
          },
        },
      ],
      ["unknown_kid", good, { jwks: { keys: [{ ...keys.active.publicJwk, use: "enc" }] } }],
      ["bad_signature", signRaw(headerOf(good), claimsOf(good), attacker.privateKey)],
      ["bad_signature", `${h}.${(await issue(keys, { requestId: "req-2" })).split(".")[1]}.${s}`],
      ["bad_signature", `${h}.${p}.${sig.toString("base64url")}`],
      ["bad_signature", `${h}.${p}.${sig.subarray(0, 63).toString("base64url")}`],
      ["bad_signature", `${h}.${p}.`],
      ["bad_claims", resigned({}, { extra: 1 })],
      ["bad_claims", resigned({}, { approver: undefined })],
      ["bad_claims", resigned({}, { decision: "auto_approved" })],
      ["bad_claims", resigned({}, { decision: "rejected" })],
      ["bad_claims", resigned({}, { grants: [{ ...GRANTS[0]!, op: "email.*" }] })],
      ["bad_claims", resigned({}, { grants: [GRANTS[0], GRANTS[0]] })],
      ["bad_claims", resigned({}, { grants: [{ ...GRANTS[0]!, args: { to: { in: ["x"], eq: "y" } } }] })],
      ["bad_claims", resigned({}, { grants: [{ ...GRANTS[0]!, args: { url: { host_in: ["https://x.com/"] } } }] })],
      [
        "bad_claims",
        resigned({}, { grants: [{ ...GRANTS[0]!, args: { body: { at: { path: "payment.to", is: { eq: 1 } } } } }] }),
      ],
      ["bad_claims", resigned({}, { across: [{ ops: ["email.send_email", "email.delete_all"], count: { max: 9 } }] })],
      ["bad_claims", resigned({}, { across: [{ ops: ["email.send_email"] }] })],
      ["bad_claims", resigned({}, { jti: "short" })],
      ["bad_claims", resigned({}, { iat: 1.5 })],
      ["bad_claims", resigned({}, { nbf: NOW_S + 301, exp: NOW_S + 300 })],
      ["bad_claims", signRaw(headerOf(good), "not json", keys.active.privateKey)],
      [
        "bad_claims",
        signRaw(
          headerOf(good),
          JSON.stringify(claimsOf(good)).replace(/^\{/, '{"x":[{"\\u005f_proto__":{}}],'),
          keys.active.privateKey,
        ),
      ],
      ["bad_issuer", good, { issuer: "someone-else" }],
      ["bad_audience", resigned({}, { aud: "another-runner" })],
      ["expired", await issue(keys, {}, new Date(NOW.getTime() - 400_000))],
      ["not_yet_valid", await issue(keys, {}, new Date(NOW.getTime() + 60_000))],
      ["lifetime_too_long", resigned({}, { exp: NOW_S + 901 })],
      ["program_mismatch", good, { programBytes: new Uint8Array([...PROGRAM, 10]) }],
      ["manifests_mismatch", resigned({}, { agent_manifests: { sha256: "d".repeat(64) } })],
      // the first failing check names the reason
      ["expired", good, { now: NOW_S + 1000, programBytes: new Uint8Array() }],
      ["bad_typ", resigned({ typ: "JWT", kid: "nobody" })],
    ];
    for (const [reason, token, c] of forgeries)
      expect({ reason, ...(await verdicts(token, c)) }).toEqual({ reason, doc: reason, library: reason });
  });

  it("refuses every Wycheproof JWS vector for the reason the library gives", async () => {
    const file = JSON.parse(
      readFileSync(
        fileURLToPath(new URL("./vectors/wycheproof/json_web_signature_test.json", import.meta.url)),
        "utf8",
      ),
    ) as {
      testGroups: { public?: Record<string, unknown>; tests: { tcId: number; jws: string }[] }[];
    };
    let count = 0;
    for (const group of file.testGroups) {
      const trusted =
        group.public !== undefined && !("d" in group.public) ? { keys: [{ kid: "kid", ...group.public }] } : undefined;
      for (const t of group.tests) {
        const { doc, library } = await verdicts(t.jws, trusted === undefined ? {} : { jwks: trusted });
        expect({ tcId: t.tcId, doc }).toEqual({ tcId: t.tcId, doc: library });
        expect(library).not.toBe("accepted");
        count++;
      }
    }
    expect(count).toBeGreaterThan(300);
  });

  it("admits and refuses the same calls as the library, with the same reason, and counts the same", async () => {
    const token = await issue(keys, {
      grants: RICH_GRANTS,
      across: [{ ops: ["email.send_email", "http.post"], count: { max: 3 } }],
    });
    const doc = new DocRun(
      await verifyByDoc(token, { keys: docKeys, issuer: ISSUER, programBytes: PROGRAM, nowSeconds: NOW_S }),
    );
    const verified = await verifyReceipt(token, {
      jwks: jwks(keys, NOW),
      issuer: ISSUER,
      programBytes: PROGRAM,
      now: NOW,
    });
    const outcomes: { call: number; doc: string; library: string }[] = [];
    for (const [i, [op, args, at, other]] of CALLS.entries()) {
      const connector = other ?? (op.startsWith("email.") ? EMAIL : op.startsWith("http.") ? HTTP : FS);
      const now = at ?? NOW_S;
      let docSays = "admitted";
      try {
        doc.check(op, connector, args, now);
      } catch (e) {
        docSays = e instanceof Refused ? e.reason : `threw ${String(e)}`;
      }
      let librarySays = "admitted";
      try {
        checkCall(verified, { op, connector, args }, new Date(now * 1000));
      } catch (e) {
        librarySays = e instanceof CountersignError ? String(e.details?.reason) : `threw ${String(e)}`;
      }
      outcomes.push({ call: i, doc: docSays, library: librarySays });
    }
    expect(outcomes.filter((o) => o.doc !== o.library)).toEqual([]);
    const seen = new Set(outcomes.map((o) => o.library));
    for (const reason of [
      "admitted",
      "no_grant",
      "connector_mismatch",
      "missing_argument",
      "argument_refused",
      "count_exceeded",
      "not_distinct",
      "expired",
    ])
      expect(seen).toContain(reason);
  });
});

const EMAIL = { name: "email", sha256: EMAIL_SHA };
const HTTP = { name: "http", sha256: "e".repeat(64) };
const FS = { name: "fs", sha256: "b".repeat(64) };

/** Grants using every constraint key a receipt can carry at run time. */
const RICH_GRANTS: Grant[] = [
  {
    op: "email.send_email",
    connector: EMAIL,
    args: {
      to: {
        all: [
          { mailbox_in: ["bob@example.com", "c.arol@gmail.com"] },
          { not: { mailbox_glob: "*@rival.com" } },
          { max_length: 2 },
        ],
      },
      subject: { any: [{ prefix: "Report" }, { suffix: "[auto]" }] },
      body: { sha256: ["2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"] },
    },
    count: { max: 2 },
    distinct: "to",
  },
  {
    op: "http.post",
    connector: HTTP,
    args: {
      url: { host_in: ["api.bank.example", "hooks.example:8443"] },
      body: { json: { at: { path: "$.payment.to", is: { in: ["DE00 1", "DE00 2"] } } } },
      headers: { fields: { "content-type": { eq: "application/json" }, "x-id": { type: ["string", "null"] } } },
      tags: { elements: { glob: "t-?" } },
      list: { not_in: [{ a: 1, b: [2] }] },
      amount: { eq: 12 },
      to: { in: ["CEO@Example.com."] },
    },
    count: { max: null },
  },
  {
    op: "fs.write_file",
    connector: FS,
    args: { path: { under: "/home/u/reports" }, text: { min_length: 1 } },
    count: { max: 1 },
  },
];

const pay = (to: string) => JSON.stringify({ payment: { to } });
const post = (over: Record<string, Json> = {}): Record<string, Json> => ({
  url: "https://api.bank.example/pay",
  body: pay("DE00 1"),
  headers: { "content-type": "application/json" },
  tags: ["t-1"],
  list: [{ b: [2], a: 2 }],
  amount: 12,
  to: "ceo@example.com",
  ...over,
});
const mail = (to: Json, over: Record<string, Json> = {}): Record<string, Json> => ({
  to,
  subject: "Report: week 1",
  body: "foo",
  ...over,
});

/** Calls, in order, against RICH_GRANTS and one limit of 3 over email.send_email and http.post. */
const CALLS: [string, Record<string, Json>, number?, { name: string; sha256: string }?][] = [
  ["email.delete_all", {}],
  ["email.send_email", mail(["bob@example.com"]), undefined],
  ["email.send_email", mail(["BOB+x@example.com."])], // the same mailbox again: not distinct
  ["email.send_email", mail(["carol@gmail.com"], { subject: "hi" })],
  ["email.send_email", mail(["carol@gmail.com"], { subject: "hi [auto]", body: "bar" })],
  ["email.send_email", mail(["eve@rival.com"])],
  ["email.send_email", mail(["a@example.com", "b@example.com", "bob@example.com"])],
  ["email.send_email", { subject: "Report", body: "foo" }],
  ["email.send_email", mail(["carol@googlemail.com"])],
  ["email.send_email", mail([], {})], // the grant's count of 2 is used up
  ["http.post", post(), undefined],
  ["http.post", post({ url: "https://api.bank.example@evil.com/" })],
  ["http.post", post({ url: "https://hooks.example:8443/x" })],
  ["http.post", post({ url: "https://hooks.example/x" })],
  ["http.post", post({ url: "ftp://api.bank.example/" })],
  ["http.post", post({ body: pay("DE66 6") })],
  ["http.post", post({ body: '{"payment":{"to":"DE00 1","to":"DE66 6"}}' })],
  ["http.post", post({ body: '{"payment":{"\\u0074o":"DE00 2"}}' })],
  ["http.post", post({ headers: { "content-type": "application/json", "x-id": 7 } })],
  ["http.post", post({ headers: { "content-type": "application/json", cookie: "x" } })],
  ["http.post", post({ tags: ["t-12"] })],
  ["http.post", post({ list: [{ b: [2], a: 1 }] })],
  ["http.post", post({ amount: 12.5 })],
  ["http.post", post({ to: "ceo@example.com" }), NOW_S + 10], // the limit across of 3 is used up
  ["http.post", post({ to: "Ceo@Example.COM" }), NOW_S + 310],
  ["fs.write_file", { path: "/home/u/reports/../secrets", text: "x" }],
  ["fs.write_file", { path: "/home/u/reports/./a//b", text: "" }],
  ["fs.write_file", { path: "/home/u/reportsX", text: "x" }],
  ["fs.write_file", { path: "/home/u/reports/a", text: "x" }, undefined],
  ["fs.write_file", { path: "/home/u/reports/b", text: "x" }],
  ["fs.write_file", { path: "/home/u/reports/c", text: "x" }, undefined, EMAIL], // another connector than the grant pins
  ["fs.write_file", { path: "/home/u/reports/c" }], // text left out: a constrained input missing
];

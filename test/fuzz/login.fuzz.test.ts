// Fuzz the approver's credentials: a login link or a session cookie edited anywhere is refused
// (capability_denied, or no session), unless the edit left its signed payload and its MAC's bytes
// as they were; a link still works once only. Nothing throws anything else.
import { createHmac } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppContext } from "../../src/app/index.js";
import { makeLoginLink, useLoginLink } from "../../src/app/index.js";
import { makeSession, readSession } from "../../src/authority/session.js";
import { CountersignError } from "../../src/model/errors.js";
import { createApproverSecret, openStore, readApproverSecret, type Store } from "../../src/store/index.js";
import { applyEdits, fuzzParameters, fuzzTimeout, sameSigned, textEdit } from "./fuzz.js";

const PIECES = [
  ..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
  ".",
  "=",
  "+",
  "/",
  "%",
  "!",
  "eyJhIjoiYm9iIn0",
];
const edits = fc.array(textEdit(PIECES), { minLength: 1, maxLength: 3 });

describe("fuzz: login links", () => {
  let store: Store;
  let ctx: AppContext;
  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "countersign-fuzz-login-"));
    createApproverSecret(dataDir);
    store = await openStore({ dataDir, database: join(dataDir, "countersign.db") });
    ctx = { dataDir, now: () => new Date(), store: async () => store } as AppContext;
  });
  afterAll(async () => store?.close());

  it(
    "an edited link is refused, or is the same signed link and then works once",
    async () => {
      await fc.assert(
        fc.asyncProperty(edits, async (e) => {
          const link = makeLoginLink(ctx, "alice");
          const edited = applyEdits(link, e);
          fc.pre(edited !== link);
          const first = await useLoginLink(ctx, edited).catch((err: unknown) => err);
          if (first === "alice") {
            expect(sameSigned(link, edited)).toBe(true);
            await expect(useLoginLink(ctx, link)).rejects.toMatchObject({
              class: "capability_denied",
              message: expect.stringContaining("was used already"),
            });
            return;
          }
          expect(first).toBeInstanceOf(CountersignError);
          expect(first).toMatchObject({ class: "capability_denied", details: { reason: "bad_login_link" } });
        }),
        fuzzParameters(2000),
      );
    },
    fuzzTimeout(60_000),
  );

  it(
    "a link signed with this secret over a payload that is not a link's JSON is refused, never thrown past",
    async () => {
      // What only the holder of the approver secret could make: a valid MAC over any payload text.
      const signed = (text: string) => {
        const payload = Buffer.from(text, "utf8").toString("base64url");
        return `${payload}.${createHmac("sha256", readApproverSecret(ctx.dataDir)).update(`countersign login link\n${payload}`).digest("base64url")}`;
      };
      const good = JSON.parse(
        Buffer.from(makeLoginLink(ctx, "carol").split(".")[0]!, "base64url").toString("utf8"),
      ) as Record<string, unknown>;
      expect(await useLoginLink(ctx, signed(JSON.stringify(good)))).toBe("carol"); // the signing above is the link's own
      const text = fc.oneof(
        fc.string({ unit: "binary", maxLength: 60 }),
        fc.constantFrom("", "{", "nul", "[1,", '{"n":', "\u0000", "\ud800", '"\\u"', "1e999999"),
        fc.nat({ max: JSON.stringify(good).length }).map((n) => JSON.stringify(good).slice(0, n)),
        fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? "null"),
      );
      await fc.assert(
        fc.asyncProperty(text, async (t) => {
          await expect(useLoginLink(ctx, signed(t))).rejects.toMatchObject({
            class: "capability_denied",
            details: { reason: "bad_login_link" },
          });
        }),
        fuzzParameters(1000),
      );
    },
    fuzzTimeout(60_000),
  );

  it(
    "a link signed with another secret, or none, is refused whatever it says",
    async () => {
      const other = mkdtempSync(join(tmpdir(), "countersign-fuzz-other-"));
      createApproverSecret(other);
      await fc.assert(
        fc.asyncProperty(
          fc.string({ maxLength: 40 }),
          fc.jsonValue({ maxDepth: 2 }),
          fc.boolean(),
          async (approver, payload, forged) => {
            const link = forged
              ? makeLoginLink({ dataDir: other, now: () => new Date() }, approver || "x")
              : `${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${Buffer.from(approver).toString("base64url")}`;
            await expect(useLoginLink(ctx, link)).rejects.toMatchObject({
              class: "capability_denied",
              details: { reason: "bad_login_link" },
            });
          },
        ),
        fuzzParameters(1000),
      );
    },
    fuzzTimeout(60_000),
  );
});

describe("fuzz: session cookies", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "countersign-fuzz-session-"));
  createApproverSecret(dataDir);
  const secret = readApproverSecret(dataDir);
  const now = Date.now();

  it("an edited cookie reads as no session, or as the very session it was", () => {
    fc.assert(
      fc.property(edits, (e) => {
        const { cookie, session } = makeSession(secret, "alice", now);
        const edited = applyEdits(cookie, e);
        const read = readSession(secret, edited, now);
        if (read === undefined) return;
        expect(sameSigned(cookie, edited)).toBe(true);
        expect(read).toEqual(session);
      }),
      fuzzParameters(3000),
    );
  });

  it("any other text, and a session of another secret or an expired one, reads as no session", () => {
    const other = Buffer.alloc(32, 7);
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: "binary", maxLength: 50 })),
        fc.string({ minLength: 1, maxLength: 20 }),
        (text, who) => {
          expect(readSession(secret, text, now)).toBeUndefined();
          expect(readSession(secret, makeSession(other, who, now).cookie, now)).toBeUndefined();
          expect(readSession(secret, makeSession(secret, who, now - 13 * 3600_000).cookie, now)).toBeUndefined();
        },
      ),
      fuzzParameters(2000),
    );
  });
});

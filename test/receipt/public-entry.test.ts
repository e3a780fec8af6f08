// countersign/receipt as another project gets it: a consumer folder whose node_modules/countersign
// is this package, resolved by Node and by TypeScript through package.json `exports` (dist/ and
// its .d.ts: run `npm run build` first). Only that one entry point resolves.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { jwks } from "../../src/receipt/jwks.js";
import { GRANTS, ISSUER, issue, keyringIn, NOW, PROGRAM } from "./fixtures.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
let consumer: string;

beforeAll(() => {
  if (!existsSync(join(ROOT, "dist", "src", "receipt", "public.js")))
    throw new Error("this test imports the built package: run `npm run build` first");
  consumer = mkdtempSync(join(tmpdir(), "countersign-consumer-"));
  mkdirSync(join(consumer, "node_modules"));
  symlinkSync(ROOT, join(consumer, "node_modules", "countersign"), "dir");
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
});

/** Run an ES module in the consumer folder; its stdout, parsed as JSON. */
function runModule(source: string, env: Record<string, string> = {}): unknown {
  const file = join(consumer, `m-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, source);
  const out = spawnSync(process.execPath, [file], { cwd: consumer, env: { ...process.env, ...env }, encoding: "utf8" });
  expect(out.stderr).toBe("");
  return JSON.parse(out.stdout);
}

describe("the package's public entry point", () => {
  it("countersign/receipt exports exactly the receipt surface", () => {
    const names = runModule(`console.log(JSON.stringify(Object.keys(await import("countersign/receipt")).sort()));`);
    expect(names).toEqual([
      "CLOCK_TOLERANCE_SECONDS",
      "CountersignError",
      "GRANT_VIOLATION_REASONS",
      "MAX_LIFETIME_SECONDS",
      "MAX_RECEIPT_BYTES",
      "MemoryRedemptionStore",
      "RECEIPT_AUDIENCE",
      "RECEIPT_INVALID_REASONS",
      "RECEIPT_TYP",
      "checkCall",
      "importJwks",
      "verifyAndRedeemReceipt",
      "verifyReceipt",
    ]);
  });

  it("verifies a real receipt, redeems it once and checks calls, with stable reason codes", async () => {
    const keys = await keyringIn();
    const token = await issue(keys);
    const input = {
      token,
      jwks: jwks(keys, NOW),
      issuer: ISSUER,
      program: Buffer.from(PROGRAM).toString("base64"),
      now: NOW.toISOString(),
      grant: GRANTS[0],
    };
    const result = runModule(
      `import { checkCall, CountersignError, importJwks, MemoryRedemptionStore, RECEIPT_INVALID_REASONS, GRANT_VIOLATION_REASONS, verifyAndRedeemReceipt } from "countersign/receipt";
      const input = JSON.parse(process.env.INPUT);
      const now = new Date(input.now);
      const opts = { jwks: importJwks(input.jwks), issuer: input.issuer, programBytes: Buffer.from(input.program, "base64"), now };
      const store = new MemoryRedemptionStore(() => now.getTime());
      const reason = async (f) => { try { await f(); return "ok"; } catch (e) { return e instanceof CountersignError ? e.class + "/" + e.details.reason : String(e); } };
      const run = await verifyAndRedeemReceipt(input.token, opts, store);
      const call = (to) => reason(() => checkCall(run, { op: input.grant.op, connector: input.grant.connector, args: { to, subject: "hi" } }, now));
      console.log(JSON.stringify({
        sub: run.claims.sub,
        calls: [await call("bob@example.com"), await call("eve@example.com"), await call("bob@example.com")],
        again: await reason(() => verifyAndRedeemReceipt(input.token, opts, store)),
        other: await reason(() => verifyAndRedeemReceipt(input.token, { ...opts, programBytes: new Uint8Array([1]) }, new MemoryRedemptionStore())),
        reasons: [RECEIPT_INVALID_REASONS.length, GRANT_VIOLATION_REASONS.includes("count_exceeded")],
      }));`,
      { INPUT: JSON.stringify(input) },
    );
    expect(result).toEqual({
      sub: "req-1",
      calls: ["ok", "grant_violation/argument_refused", "grant_violation/not_distinct"],
      again: "receipt_invalid/replayed",
      other: "receipt_invalid/program_mismatch",
      reasons: [16, true],
    });
  });

  it("resolves nothing else: not the package itself, not its internals, not its package.json", () => {
    const specifiers = [
      "countersign",
      "countersign/dist/src/receipt/index.js",
      "countersign/dist/src/receipt/public.js",
      "countersign/src/receipt/verify.ts",
      "countersign/receipt/verify",
      "countersign/package.json",
    ];
    const codes = runModule(
      `const codes = {};
      for (const s of ${JSON.stringify(specifiers)}) { try { await import(s); codes[s] = "imported"; } catch (e) { codes[s] = e.code; } }
      console.log(JSON.stringify(codes));`,
    );
    expect(codes).toEqual(Object.fromEntries(specifiers.map((s) => [s, "ERR_PACKAGE_PATH_NOT_EXPORTED"])));
  });

  it("has types: a consumer type-checks against them, and a misuse is a type error", () => {
    symlinkSync(join(ROOT, "node_modules", "@types"), join(consumer, "node_modules", "@types"), "dir"); // a Node project has @types/node
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
        },
        files: ["consumer.ts"],
      }),
    );
    // An expect-error directive is itself an error where no error follows: the one run checks both ways.
    writeFileSync(
      join(consumer, "consumer.ts"),
      `import { checkCall, importJwks, verifyAndRedeemReceipt, MemoryRedemptionStore, type VerifiedReceipt, type ReceiptInvalidReason } from "countersign/receipt";
      export async function admit(token: string, jwks: unknown, programBytes: Uint8Array): Promise<VerifiedReceipt> {
        const run = await verifyAndRedeemReceipt(token, { jwks: importJwks(jwks), issuer: "x", programBytes }, new MemoryRedemptionStore());
        checkCall(run, { op: "a.b", connector: { name: "a", sha256: "0" }, args: { n: 1 } });
        // @ts-expect-error a call needs its connector
        checkCall(run, { op: "a.b", args: {} });
        // @ts-expect-error not a reason code
        const wrong: ReceiptInvalidReason = "forged";
        const reason: ReceiptInvalidReason = "replayed";
        void [wrong, reason];
        return run;
      }\n`,
    );
    const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", consumer], {
      cwd: consumer,
      encoding: "utf8",
    });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  }, 120_000); // a whole type check of the declarations, on a loaded machine
});

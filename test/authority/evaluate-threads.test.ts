// Submissions are decided and signed on the decision thread: what the event loop puts in force
// (a reloaded policy, a rotated key) reaches it, a refused reload changes nothing, and a thread
// that fails answers its submissions with an error rather than never.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeProtectedHeader } from "jose";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { DecisionThread } from "../../src/authority/decision-thread.js";
import { decide } from "../../src/policy/index.js";
import { generateKey } from "../../src/receipt/index.js";
import { loadPolicy } from "../../src/config/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { shippedManifests } from "../policy/helpers.js";
import { example, HOME, startTestAuthority, type TestAuthority } from "./harness.js";

const authorities: TestAuthority[] = [];
afterAll(async () => {
  await Promise.all(authorities.map((a) => a.close()));
});

/** Submit the same program `n` times at once (both threads take some) and answer the statuses. */
async function submitMany(a: TestAuthority, n: number): Promise<{ status: number; body: any }[]> {
  return Promise.all(
    Array.from({ length: n }, () => a.call("POST", "/v1/requests", { body: { program: example("read-notes.ts") } })),
  );
}

describe("decisions off the event loop", () => {
  it("a reloaded policy decides at once; a policy that fails to load keeps the old one", async () => {
    const a = await startTestAuthority("sqlite", { poolSize: 2 });
    authorities.push(a);
    const alice = await a.login();
    expect((await submitMany(a, 8)).map((r) => r.body.status)).toEqual(Array(8).fill("approved"));

    const file = join(a.dataDir, "policies", "default.toml");
    const shipped = readFileSync(file, "utf8");
    writeFileSync(file, shipped.replace('id = "fs.read"\ndecision = "allow"', 'id = "fs.read"\ndecision = "ask"'));
    expect((await a.call("POST", "/v1/reload", { session: alice, body: {} })).body).toMatchObject({ ok: true });
    const asked = await submitMany(a, 8);
    expect(asked.map((r) => [r.status, r.body.status])).toEqual(Array(8).fill([202, "pending"]));

    writeFileSync(join(a.dataDir, "policies", "broken.toml"), 'default = "sometimes"\n');
    expect((await a.call("POST", "/v1/reload", { session: alice, body: {} })).body).toMatchObject({ ok: false });
    expect((await submitMany(a, 8)).map((r) => r.body.status)).toEqual(Array(8).fill("pending"));
  });

  it("receipts are signed with the key in force: a rotation reaches the thread", async () => {
    const a = await startTestAuthority("sqlite", { poolSize: 2 });
    authorities.push(a);
    const keys = a.authority.state.ctx.keys;
    const before = (await keys.keyring(new Date())).active.kid;
    const kids = async () => (await submitMany(a, 8)).map((r) => decodeProtectedHeader(r.body.receipt as string).kid);
    expect(await kids()).toEqual(Array(8).fill(before));
    const after = (await keys.rotate(new Date())).active.kid;
    expect(after).not.toBe(before);
    expect(await kids()).toEqual(Array(8).fill(after));
  });
});

describe("DecisionThread", () => {
  const manifests = shippedManifests();
  const policy = loadPolicy(join(packageRoot, "policies"), { manifests, home: HOME });

  it("decides as the event loop would, and signs when a receipt is ordered (new facts in process, seen ones on the thread)", async () => {
    const thread = new DecisionThread(30_000);
    try {
      const facts = createAnalyzer(manifests).analyze(example("read-notes.ts"), { entry: "read-notes.ts" });
      const key = (await generateKey(new Date())).privateKey;
      const answers = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          thread.evaluate(facts, policy, manifests, {
            id: `req_${i}`,
            issuer: "http://127.0.0.1:1",
            now: new Date(),
            key: { kid: "k1", privateKey: key },
          }),
        ),
      );
      for (const [i, answer] of answers.entries()) {
        expect(answer.facts).toBe(facts);
        expect(answer.decision).toEqual(decide(facts, policy, manifests));
        expect(decodeProtectedHeader(answer.receipt!.token).kid).toBe("k1");
        expect(JSON.parse(Buffer.from(answer.receipt!.token.split(".")[1]!, "base64url").toString()).sub).toBe(
          `req_${i}`,
        );
      }
      expect((await thread.evaluate(facts, policy, manifests, undefined)).receipt).toBeUndefined();
    } finally {
      await thread.close();
    }
  });

  it("answers a large batch in parts: the first submissions do not wait for the whole batch to be decided", async () => {
    const thread = new DecisionThread(30_000);
    try {
      const facts = createAnalyzer(manifests).analyze(example("read-notes.ts"), { entry: "read-notes.ts" });
      const key = { kid: "k1", privateKey: (await generateKey(new Date())).privateKey };
      await thread.evaluate(facts, policy, manifests, undefined); // new facts are decided in process; from now on they go to the thread
      const n = 64; // one message to the thread; each job a decision and a signature, far over a millisecond in all
      const answered: boolean[] = Array(n).fill(false);
      let answeredWhenTheFirstCame: number | undefined;
      const first = new Promise<void>((resolve) => {
        const all = Array.from({ length: n }, (_, i) =>
          thread
            .evaluate(facts, policy, manifests, { id: `req_${i}`, issuer: "http://127.0.0.1:1", now: new Date(), key })
            .then((answer) => {
              answered[i] = true;
              if (i === 0)
                setImmediate(() => ((answeredWhenTheFirstCame = answered.filter(Boolean).length), resolve()));
              return answer;
            }),
        );
        void Promise.all(all).then((answers) => expect(answers.every((a) => a.receipt !== undefined)).toBe(true));
      });
      await first;
      expect(answeredWhenTheFirstCame).toBeLessThan(n);
      await expect.poll(() => answered.every(Boolean)).toBe(true);
    } finally {
      await thread.close();
    }
  });

  it("a thread that overruns fails the submissions it held (503, retriable), and the next one gets a new thread", async () => {
    const thread = new DecisionThread(1); // no decision fits in 1 ms with a thread still starting
    const facts = createAnalyzer(manifests).analyze(example("read-notes.ts"), { entry: "read-notes.ts" });
    try {
      await thread.evaluate(facts, policy, manifests, undefined); // new facts are decided in process; from now on they go to the thread
      const held = await Promise.all(
        Array.from({ length: 3 }, () =>
          thread.evaluate(facts, policy, manifests, undefined).then(
            () => "answered",
            (err: unknown) => err,
          ),
        ),
      );
      for (const outcome of held) expect(outcome).toMatchObject({ class: "internal_error", retriable: true });
    } finally {
      await thread.close();
    }
    const fresh = new DecisionThread(30_000);
    try {
      await expect(fresh.evaluate(facts, policy, manifests, undefined)).resolves.toMatchObject({
        decision: { kind: "auto_approved" },
      });
    } finally {
      await fresh.close();
    }
  });
});

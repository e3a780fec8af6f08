import { CountersignError, Facts, PolicyDecision } from "../model/index.js";
import type { RecordedDecision, StoredRequest } from "../model/index.js";
import { SubmitInput } from "../model/index.js";
import { timeOrderedToken } from "../receipt/index.js";
import { sha256Hex, sha256Json } from "./audit-chain.js";
import { change, HEAD_MOVED, type Change, type StoreContext } from "./change.js";
import { CheckedJson } from "./checked-json.js";
import { allInOrder } from "./all-in-order.js";
import type { SqlValue } from "./driver.js";
import { leftToCommit } from "./issued-statements.js";
import { parseInput } from "./parse-input.js";
import { checkKeptManifests, statusOf } from "./request-row.js";
import { insertReceipts, receiptIssued } from "./receipts.js";
import { storeUsageError } from "./store-error.js";

export type SubmitResult = { ok: true; request: StoredRequest } | { ok: false; reason: "token_inactive" };

/**
 * 96 random bits after the time (timeOrderedToken): request ids are not guessable, and they go to the end of the index.
 */
export function newRequestId(): string {
  return `req_${timeOrderedToken(Date.now())}`;
}

/** The submission's fields; its facts and its policy decision are checked on their own (below). */
const SubmitFields = SubmitInput.omit({ facts: true, policy: true });

/** Policy decisions by their JSON text: a repeated program gets an equal decision every time. */
const policies = new CheckedJson(PolicyDecision, "submission (policy)");

interface CheckedFacts {
  facts: Facts;
  json: string; // as stored
  sha256: string; // of their canonical JSON, as the audit records it
  source?: string; // the last source found to hash to facts.program.sha256: an equal text needs no hashing again
}

/**
 * Facts are checked once per object: the authority submits the same (cached, never mutated)
 * facts object for every submission of a program, and checking, serializing and hashing a
 * program's facts costs more than the rest of its submission. The cached result holds the
 * checked copy, so a caller that changed its object later would not change what is stored.
 */
const checked = new WeakMap<object, CheckedFacts>();

function checkedFacts(raw: unknown): CheckedFacts {
  const known = typeof raw === "object" && raw !== null ? checked.get(raw) : undefined;
  if (known !== undefined) return known;
  const facts = parseInput(Facts, raw, "submission (facts)");
  const value = { facts, json: JSON.stringify(facts), sha256: sha256Json(facts) };
  if (typeof raw === "object" && raw !== null) checked.set(raw, value);
  return value;
}

interface Prepared {
  input: ReturnType<typeof SubmitFields.parse>;
  checked: CheckedFacts;
  policy: PolicyDecision;
  policyJson: string; // as stored
  id: string;
}

/** Check a submission before it joins a transaction: a caller's mistake is its own usage_error, never its batch's. */
function prepare(raw: SubmitInput): Prepared {
  const { facts: rawFacts, policy: rawPolicy, ...rest } = raw;
  const input = parseInput(SubmitFields, rest, "submission");
  const checked = checkedFacts(rawFacts);
  const { value: policy, json: policyJson } = policies.check(rawPolicy);
  const { facts } = checked;
  if (checked.source !== input.source) {
    if (sha256Hex(input.source) !== facts.program.sha256) {
      throw storeUsageError(
        "the facts were not derived from this source: its sha256 differs from facts.program.sha256",
      );
    }
    checked.source = input.source;
  }
  if (facts.agentManifests !== undefined && input.agent_manifests === undefined) {
    throw storeUsageError(
      "the facts record agent manifests: their canonical text must be stored with the request (agent_manifests)",
    );
  }
  checkKeptManifests(facts, input.agent_manifests, (message, reason) => storeUsageError(message, { reason }));
  if (policy.kind === "auto_approved" && !facts.ok)
    throw storeUsageError("a program the analysis refused cannot be auto_approved");
  if (input.receipt !== undefined && (policy.kind !== "auto_approved" || input.id === undefined)) {
    throw storeUsageError("a receipt can be recorded with a submission only when it is auto_approved and names its id");
  }
  return { input, checked, policy, policyJson, id: input.id ?? newRequestId() };
}

/**
 * Record new requests with the authority's own analysis and policy decision: pending when the
 * policy asks a person, decided at once otherwise. The submitting token must still be active
 * inside the transaction, so a revoked token stops at once. Each request's audit entries follow
 * one another in submission order; the requests, and then their receipts, go in with one
 * statement each. On PostgreSQL that is two round trips however many submissions commit
 * together: the token reads with BEGIN and the chain head's lock, then every row with COMMIT;
 * or one, when the tokens are expected active (`expectActive`: the database checks it, and
 * fails the transaction if one is not) and the head is expected too (SubmitQueue). The
 * results wait for the commit: they need the seq the database gave each request.
 */
async function insertSubmissions(
  c: Change,
  batch: readonly Prepared[],
  expectActive: boolean,
): Promise<{ results: Promise<SubmitResult[]> }> {
  const tokens = [...new Set(batch.map((p) => p.input.token))];
  const active = new Map(tokens.map((name) => [name, true]));
  if (expectActive) {
    // checked by the database after the head's lock, as the reads below; one inactive fails the transaction
    // (TOKEN_INACTIVE)
    for (const name of tokens) leftToCommit(c.tx.all("SELECT countersign_expect_active_token(?)", [name]));
  } else {
    // read once per transaction, after the head's lock: a revocation waits for the lock we hold
    const reads = await allInOrder(
      tokens.map((name) => c.tx.all("SELECT revoked_at FROM tokens WHERE name = ?", [name])),
    );
    for (const [i, name] of tokens.entries())
      active.set(name, reads[i]![0] !== undefined && reads[i]![0].revoked_at === null);
  }
  const accepted = batch.filter((p) => active.get(p.input.token));
  const requests = accepted.map((p) => newRequest(p, c.now));
  const rows = requests.map((r, i) => [
    r.id,
    r.token,
    r.status,
    r.source,
    accepted[i]!.checked.json,
    accepted[i]!.policyJson,
    r.rationale,
    r.agent_manifests ?? null,
    r.created_at,
    r.deadline_at,
    r.decision?.kind ?? null,
    r.decision?.reason ?? null,
    r.decision?.at ?? null,
  ]);
  const into =
    "requests (id, token, status, source, facts, policy, rationale, agent_manifests, created_at, deadline_at, decision, reason, decided_at)";
  const inserted = c.tx.insert(into, rows, "id, seq");
  const receipts: SqlValue[][] = [];
  for (const [i, request] of requests.entries()) {
    const { id, facts, policy, decision, status } = request;
    const submitted = await c.audit({
      type: "submitted",
      request_id: id,
      actor: request.token,
      details: {
        // keys in sorted order, as every entry's details below: their canonical text is then JSON.stringify's
        // (canonicalDetails)
        ...(facts.agentManifests === undefined ? {} : { agent_manifests_sha256: facts.agentManifests.sha256 }),
        deadline_at: request.deadline_at,
        entry: facts.program.entry,
        program_sha256: facts.program.sha256,
      },
    });
    await c.audit({
      type: "analyzed",
      request_id: id,
      actor: "authority",
      details: {
        facts_sha256: accepted[i]!.checked.sha256,
        kind: policy.kind,
        policy_sha256: policy.policy.sha256,
        reason: policy.reason,
      },
    });
    if (decision === null) await c.event(submitted, "pending", status);
    else
      await c.event(
        await c.audit({ type: "decided", request_id: id, actor: "policy", details: { kind: decision.kind } }),
        "resolved",
        status,
      );
    const receipt = accepted[i]!.input.receipt;
    if (receipt !== undefined) receipts.push(await receiptIssued(c, id, receipt));
  }
  const results = inserted.then((seqRows) => {
    const seqs = new Map(seqRows.map((row) => [String(row.id), Number(row.seq)]));
    const stored = new Map(requests.map((request) => [request.id, { ...request, seq: seqs.get(request.id)! }]));
    return batch.map(
      (p): SubmitResult =>
        active.get(p.input.token) ? { ok: true, request: stored.get(p.id)! } : { ok: false, reason: "token_inactive" },
    );
  });
  leftToCommit(insertReceipts(c, receipts), results);
  return { results };
}

/** A new request as recorded, all but its seq (the database assigns it). */
function newRequest({ input, checked, policy, id }: Prepared, now: number): Omit<StoredRequest, "seq"> {
  const decision: RecordedDecision | null =
    policy.kind === "ask"
      ? null
      : { kind: policy.kind, approver: null, reason: policy.reason, feedback: null, at: now };
  return {
    id,
    token: input.token,
    status: decision === null ? "pending" : statusOf(decision.kind),
    source: input.source,
    facts: checked.facts,
    policy,
    rationale: input.rationale ?? null,
    ...(input.agent_manifests === undefined ? {} : { agent_manifests: input.agent_manifests }),
    created_at: now,
    deadline_at: now + input.deadline_s * 1000,
    decision,
  };
}

/** The SQLSTATE of a submission built on a token that is no longer active (migrations.ts). */
const TOKEN_INACTIVE = "CS002";
const GUESSED_WRONG = new Set([HEAD_MOVED, TOKEN_INACTIVE]);

/** Submissions add requests, receipts and audit entries: no token or rule changes. */
const KEEPS_CACHED_READS = { keepsCachedReads: true };

/** The most submissions one transaction commits together. */
const MAX_BATCH = 64;

interface Waiting {
  prepared: Prepared;
  resolve(result: SubmitResult): void;
  reject(err: unknown): void;
}

/**
 * Group commit: submissions that arrive while a transaction commits wait and then commit
 * together in the next one — each with its own rows and audit entries, in arrival order, and
 * none answered before that commit. One commit (and, on PostgreSQL, one fsync under the chain
 * head lock) then serves many requests. A batch that fails is retried one submission at a time,
 * so that one bad submission fails alone.
 */
export class SubmitQueue {
  readonly #ctx: StoreContext;
  readonly #waiting: Waiting[] = [];
  #committing = false;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  submit(raw: SubmitInput): Promise<SubmitResult> {
    let prepared: Prepared;
    try {
      prepared = prepare(raw);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<SubmitResult>((resolve, reject) => {
      this.#waiting.push({ prepared, resolve, reject });
      this.#next();
    });
  }

  #next(): void {
    if (this.#committing || this.#waiting.length === 0) return;
    this.#committing = true;
    // After the I/O of this turn of the event loop, so that submissions arriving together commit together.
    setImmediate(() => {
      void this.#commit(this.#waiting.splice(0, MAX_BATCH)).finally(() => {
        this.#committing = false;
        this.#next();
      });
    });
  }

  async #commit(batch: Waiting[]): Promise<void> {
    try {
      for (const [i, result] of (await this.#insert(batch.map((item) => item.prepared))).entries())
        batch[i]!.resolve(result);
    } catch (err) {
      if (batch.length === 1) batch[0]!.reject(err);
      else for (const item of batch) await this.#commit([item]);
    }
  }

  /**
   * On PostgreSQL, a batch is first committed in one round trip, built on the chain head this
   * process's last change left and on its tokens being active, both checked by the database
   * under the head's lock; when either guess is wrong (another process wrote, a token was
   * revoked) nothing was committed and the batch goes again the long way, reading both first.
   */
  async #insert(batch: Prepared[]): Promise<SubmitResult[]> {
    const expectHead = this.#ctx.driver.dialect === "postgres" ? this.#ctx.head : undefined;
    if (expectHead !== undefined) {
      try {
        return await (
          await change(this.#ctx, (c) => insertSubmissions(c, batch, true), { ...KEEPS_CACHED_READS, expectHead })
        ).results;
      } catch (err) {
        if (!(err instanceof CountersignError && GUESSED_WRONG.has(String(err.details?.code)))) throw err;
      }
    }
    return await (await change(this.#ctx, (c) => insertSubmissions(c, batch, false), KEEPS_CACHED_READS)).results;
  }
}

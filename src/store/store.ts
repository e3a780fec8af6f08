import type { AuditEntry, AuditVerification, ExternalAudit, GivenText } from "../model/index.js";
import type { ListQuery, PersonDecision, StoredRequest, StoreEvent, SubmitInput } from "../model/index.js";
import type { RedemptionStore } from "../receipt/index.js";
import type { HeadToHold } from "./audit-chain.js";
import { chainHead, verifyAuditChain, exportAudit, recordAudit } from "./audit-log.js";
import {
  checkpointsAround,
  checkpointTokens,
  decisionEntryId,
  entryBetweenCheckpoints,
  newestCheckpoint,
  recordCheckpoint,
  type StoredCheckpoint,
} from "./checkpoints.js";
import type { CheckpointSigner, StoreContext } from "./change.js";
import { decideRequest, type DecideResult } from "./decide-request.js";
import type { Dialect, Driver } from "./driver.js";
import { EventFeed, eventsSince, type EventsListener, type SubscribeOptions } from "./events.js";
import { expireDue } from "./expire-requests.js";
import {
  getRequest,
  listRequests,
  recordedSince,
  type RecordedRequest,
  type RequestListPage,
} from "./list-requests.js";
import { ReadCache } from "./read-cache.js";
import {
  receiptToHandOut,
  recordReceipt,
  redeemReceipt,
  type ReceiptRecord,
  type ReceiptToHandOut,
  type RecordReceiptResult,
  type RedeemOutcome,
} from "./receipts.js";
import { givenTo, recordGiven, type GivenRecord } from "./given-texts.js";
import { putHandles, readHandle, type HandleRow, type StoredHandle } from "./handles.js";
import { useLoginLink, type LoginLink } from "./login-links.js";
import { forgetRule, listRememberedRules, type StoredRule } from "./remembered-rules.js";
import { SubmitQueue, type SubmitResult } from "./submit-request.js";
import { addToken, authenticate, listTokens, revokeToken, type TokenInfo } from "./tokens.js";
import { withdrawRequest, type WithdrawResult } from "./withdraw-request.js";

/**
 * The authority's durable state: requests, decisions, receipts, remembered rules, submitter
 * tokens and the hash-chained audit log, in SQLite or PostgreSQL behind the same methods. Every
 * method that changes state is one transaction that also appends its audit entry, committed
 * before the method resolves; when it rejects (a store_error), nothing of it happened.
 */
export class Store implements RedemptionStore {
  readonly #ctx: StoreContext;
  readonly #feed: EventFeed;
  readonly #submissions: SubmitQueue;

  constructor(driver: Driver, now: () => number = Date.now) {
    this.#ctx = { driver, now, reads: new ReadCache(driver) };
    this.#feed = new EventFeed(this.#ctx);
    this.#submissions = new SubmitQueue(this.#ctx);
  }

  get dialect(): Dialect {
    return this.#ctx.driver.dialect;
  }

  /** Concurrent submissions commit together (group commit); each resolves once its transaction has committed. */
  submit(input: SubmitInput): Promise<SubmitResult> {
    return this.#submissions.submit(input);
  }
  get(id: string): Promise<StoredRequest | null> {
    return getRequest(this.#ctx, id);
  }
  list(query?: ListQuery): Promise<RequestListPage> {
    return listRequests(this.#ctx, query);
  }
  /**
   * Requests created since `since` (ms), oldest first, each checked or with why it no longer reads: for replaying them,
   * read only.
   */
  recordedSince(since: number): Promise<RecordedRequest[]> {
    return recordedSince(this.#ctx, since);
  }
  /** `checkpoint`: sign the head the decision leaves the chain at, stored with it. */
  decide(id: string, decision: PersonDecision, checkpoint?: CheckpointSigner): Promise<DecideResult> {
    return decideRequest(this.#ctx, id, decision, checkpoint);
  }
  withdraw(id: string, token: string): Promise<WithdrawResult> {
    return withdrawRequest(this.#ctx, id, token);
  }
  /** Expire pending requests past their deadline; the ids expired now. */
  expireDue(): Promise<string[]> {
    return expireDue(this.#ctx);
  }

  /** Read only: the valid receipt of an approved request, or whether a new one may be issued. */
  receiptToHandOut(requestId: string): Promise<ReceiptToHandOut> {
    return receiptToHandOut(this.#ctx, requestId);
  }
  recordReceipt(receipt: ReceiptRecord): Promise<RecordReceiptResult> {
    return recordReceipt(this.#ctx, receipt);
  }
  /** `token`: the redeeming submitter, which must be the one whose request the receipt is for. */
  redeemReceipt(jti: string, exp: number, token?: string): Promise<RedeemOutcome> {
    return redeemReceipt(this.#ctx, jti, exp, token);
  }
  /** The receipt verifier's interface: true exactly once per recorded receipt (and per request). */
  async redeem(jti: string, exp: number): Promise<boolean> {
    return (await this.redeemReceipt(jti, exp)) === "redeemed";
  }

  /** Record what a run gave its agent back; false when that request's output is recorded already. */
  recordGiven(record: GivenRecord): Promise<boolean> {
    return recordGiven(this.#ctx, record);
  }
  /** The untrusted texts the token's runs gave it since `since` (ms), oldest first. */
  givenTo(token: string, since: number): Promise<GivenText[]> {
    return givenTo(this.#ctx, token, since);
  }

  addToken(name: string): Promise<{ name: string; token: string }> {
    return addToken(this.#ctx, name);
  }
  listTokens(): Promise<TokenInfo[]> {
    return listTokens(this.#ctx);
  }
  revokeToken(name: string): Promise<boolean> {
    return revokeToken(this.#ctx, name);
  }
  /** The active token's name, or null. */
  authenticate(token: string): Promise<string | null> {
    return authenticate(this.#ctx, token);
  }

  /** True for the first use of an approver login link before it expires; false ever after. */
  useLoginLink(link: LoginLink): Promise<boolean> {
    return useLoginLink(this.#ctx, link);
  }

  /** Keep the values a run held back from its submitter (quarantined results). */
  putHandles(rows: readonly HandleRow[]): Promise<void> {
    return putHandles(this.#ctx, rows);
  }
  /** A held value for its own submitter only; undefined when unknown, another's, or expired. */
  readHandle(id: string, submitter: string): Promise<StoredHandle | undefined> {
    return readHandle(this.#ctx, id, submitter);
  }

  listRememberedRules(): Promise<StoredRule[]> {
    return listRememberedRules(this.#ctx);
  }
  forgetRule(id: string, actor: string): Promise<boolean> {
    return forgetRule(this.#ctx, id, actor);
  }

  recordAudit(entry: ExternalAudit): Promise<AuditEntry> {
    return recordAudit(this.#ctx, entry);
  }
  /** `checkpoints`: signed heads the chain must hold, their signatures checked by the caller. */
  verifyAuditChain(checkpoints?: readonly HeadToHold[]): Promise<AuditVerification> {
    return verifyAuditChain(this.#ctx, checkpoints);
  }
  /** The last entry's id and hash as the store records them (id 0: an empty chain). */
  auditHead(): Promise<{ id: number; hash: string }> {
    return chainHead(this.#ctx);
  }
  recordCheckpoint(checkpoint: StoredCheckpoint): Promise<void> {
    return recordCheckpoint(this.#ctx, checkpoint);
  }
  /** Every checkpoint's JWS stored with one of `kids`, smallest first: unverified, as stored. */
  checkpoints(kids: readonly string[]): Promise<string[]> {
    return checkpointTokens(this.#ctx, kids);
  }
  newestCheckpoint(kids: readonly string[]): Promise<string | undefined> {
    return newestCheckpoint(this.#ctx, kids);
  }
  /** The id of a request's last `decided` audit entry. */
  decisionEntryId(requestId: string): Promise<number | undefined> {
    return decisionEntryId(this.#ctx, requestId);
  }
  /** The checkpoints stored with one of `kids` (unverified JWS) either side of entry `id`. */
  checkpointsAround(id: number, kids: readonly string[]): Promise<{ before?: string; holding?: string }> {
    return checkpointsAround(this.#ctx, id, kids);
  }
  /** Entry `id`, once the stretch of the chain between two verified checkpoints that holds it verifies. */
  entryBetweenCheckpoints(id: number, from: { size: number; head: string } | undefined, to: HeadToHold) {
    return entryBetweenCheckpoints(this.#ctx, id, from, to);
  }
  exportAudit(): AsyncGenerator<Record<string, unknown>> {
    return exportAudit(this.#ctx);
  }

  eventsSince(after: number, limit?: number): Promise<StoreEvent[]> {
    return eventsSince(this.#ctx, after, limit);
  }
  /** Live change events (see EventFeed); resolves to the function that unsubscribes. */
  subscribe(listener: EventsListener, options?: SubscribeOptions): Promise<() => Promise<void>> {
    return this.#feed.subscribe(listener, options);
  }

  close(): Promise<void> {
    return this.#ctx.driver.close();
  }
}

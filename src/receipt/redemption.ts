/**
 * Single use of receipts. `redeem` answers true exactly once per jti, across every runner sharing
 * the store. `exp` (seconds) is when the receipt can no longer pass any verifier, clock tolerance
 * included: the entry may be forgotten after it, never before.
 */
export interface RedemptionStore {
  redeem(jti: string, exp: number): Promise<boolean>;
}

/** A store for one process (tests, a local runner); the authority's database store replaces it. */
export class MemoryRedemptionStore implements RedemptionStore {
  readonly #redeemed = new Map<string, number>();
  readonly #now: () => number;
  #nextSweep = 0;

  /** `now` in milliseconds, injectable for tests. */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  async redeem(jti: string, exp: number): Promise<boolean> {
    this.#sweep();
    if (this.#redeemed.has(jti)) return false;
    this.#redeemed.set(jti, exp);
    return true;
  }

  get size(): number {
    return this.#redeemed.size;
  }

  /** Forget entries past their exp, at most once a minute so that redeem stays O(1) on average. */
  #sweep(): void {
    const now = this.#now() / 1000;
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + 60;
    for (const [jti, exp] of this.#redeemed) if (exp < now) this.#redeemed.delete(jti);
  }
}

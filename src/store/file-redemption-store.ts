import { createHash } from "node:crypto";
import { readdirSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { makePrivateDir } from "../model/index.js";
import type { RedemptionStore } from "../receipt/index.js";
import { writeFileAtomic } from "./atomic-write.js";

/**
 * Single use of receipts for every runner of one machine: `redeemed/<sha256(jti)>` in the data
 * directory, created exclusively (a hard link that fails when the name exists), so exactly one
 * process redeems each jti even when several race. Each entry holds its `exp`; entries past it are
 * removed now and then. The authority's database store replaces it for shared deployments.
 */
export class FileRedemptionStore implements RedemptionStore {
  readonly #dir: string;
  readonly #now: () => number;
  #nextSweep = 0;

  /** `now` in milliseconds, injectable for tests. */
  constructor(dataDir: string, now: () => number = Date.now) {
    this.#dir = join(dataDir, "redeemed");
    this.#now = now;
  }

  async redeem(jti: string, exp: number): Promise<boolean> {
    makePrivateDir(this.#dir);
    this.#sweep();
    try {
      writeFileAtomic(join(this.#dir, createHash("sha256").update(jti).digest("hex")), `${exp}\n`, 0o600, {
        exclusive: true,
      });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw err;
    }
  }

  /** Remove entries past their exp, at most once a minute. An entry that cannot be read is kept. */
  #sweep(): void {
    const now = this.#now() / 1000;
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + 60;
    for (const name of readdirSync(this.#dir)) {
      if (!/^[0-9a-f]{64}$/.test(name)) continue;
      const file = join(this.#dir, name);
      try {
        if (Number(readFileSync(file, "utf8")) < now) unlinkSync(file);
      } catch {}
    }
  }
}

import type { Driver } from "./driver.js";

/** Keys kept at most; past it the cache starts over (an unknown token's hash is a key too). */
const MAX_ENTRIES = 1000;

/**
 * Reads answered from memory while the database says nothing committed since (Driver.version):
 * the authority reads the submitter token and the remembered rules for every submission, and
 * they change only when someone adds or revokes a token or saves or forgets a rule — through
 * this process, or the CLI's own connection, which SQLite's data_version reveals. The token
 * check is a request's first read and asks the database afresh (`fresh`), so a token revoked
 * before the request arrived stops it, as it would if every read went to the database. Other
 * reads take what was looked up last in this turn of the event loop: for a submission's rules
 * that is its own token check's or a later one's, so they too see every change committed before
 * the request arrived (and the changes of this process at once). PostgreSQL's driver answers the
 * version from the database itself (one read serving every request of an event-loop turn, never
 * one that began before the request); a driver that cannot tell reads every time.
 */
export class ReadCache {
  readonly #driver: Driver;
  readonly #entries = new Map<string, { version: string; value: Promise<unknown> }>();

  constructor(driver: Driver) {
    this.#driver = driver;
  }

  read<T>(key: string, read: () => Promise<T>, fresh = false): Promise<T> {
    // before the read: a change after it makes the entry stale, never the reverse
    const version = this.#driver.version(fresh);
    if (version === undefined) return read();
    if (typeof version !== "string") return version.then((v) => this.#readAt(v, key, read));
    return this.#readAt(version, key, read);
  }

  #readAt<T>(version: string, key: string, read: () => Promise<T>): Promise<T> {
    const known = this.#entries.get(key);
    if (known?.version === version) return known.value as Promise<T>;
    const value = read();
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(key, { version, value });
    value.catch(() => {
      if (this.#entries.get(key)?.value === value) this.#entries.delete(key);
    });
    return value;
  }
}

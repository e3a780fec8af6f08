import type { Driver } from "./driver.js";

/** Keys kept at most; past it the cache starts over (an unknown token's hash is a key too). */
const MAX_ENTRIES = 1000;

/**
 * Reads answered from memory while the database says nothing committed since (Driver.version):
 * the authority reads the submitter token and the remembered rules for every submission, and
 * they change only when someone adds or revokes a token or saves or forgets a rule — through
 * this process, or the CLI's own connection, which SQLite's data_version reveals. A revoked
 * token therefore stops at the next request, as it would if every read went to the database.
 * PostgreSQL's driver answers the version from the database itself (one read serving every
 * request of an event-loop turn); a driver that cannot tell reads every time.
 */
export class ReadCache {
  readonly #driver: Driver;
  readonly #entries = new Map<string, { version: string; value: Promise<unknown> }>();

  constructor(driver: Driver) {
    this.#driver = driver;
  }

  read<T>(key: string, read: () => Promise<T>): Promise<T> {
    const version = this.#driver.version(); // before the read: a change after it makes the entry stale, never the reverse
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

import type pg from "pg";
import { asStoreError } from "./store-error.js";

/** Prepared once per connection: the one statement every batch of requests sends. */
const READ = { name: "countersign_reads_version", text: "SELECT n FROM reads_version WHERE one = 1" };

interface Waiting {
  promise: Promise<string>;
  resolve(version: string): void;
  reject(err: unknown): void;
}

function waiting(): Waiting {
  let resolve!: (version: string) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<string>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/**
 * The PostgreSQL driver's `version()`: the reads_version counter, which every change to tokens or
 * remembered rules bumps in its own transaction (migration 5's triggers), from any process.
 * A `fresh` caller gets a read sent after it called: the callers of one event-loop turn share
 * one, and those that come while a read is in flight wait for the next, never that one — its
 * snapshot may predate a revocation committed before they called. So a token revoked anywhere
 * stops the very next request, for one round trip per batch instead of one read per request.
 * Any other caller may be answered, at once, the read that completed in this turn of the event
 * loop: for a submission's remembered rules, looked up after its token check, that is its own
 * token check's read or a later one (reads are sent one at a time, each after the previous was
 * answered), so they too see every change committed before the request arrived.
 */
export function versionReader(pool: pg.Pool): (fresh: boolean) => string | Promise<string> {
  let next: Waiting | undefined; // callers whose read is not sent yet
  let reading = false;
  let answeredThisTurn: string | undefined;
  const send = (): void => {
    if (reading || next === undefined) return;
    const batch = next;
    next = undefined;
    reading = true;
    pool
      .query<{ n: number }>(READ)
      .then((result) => {
        const row = result.rows[0];
        if (row === undefined) throw new Error("the reads_version row is missing");
        const version = String(row.n);
        // the check phase of this loop iteration
        if (answeredThisTurn === undefined) setImmediate(() => (answeredThisTurn = undefined));
        answeredThisTurn = version; // before its callers resume, so that what they look up next reuses it
        batch.resolve(version);
      })
      .catch((err: unknown) => batch.reject(asStoreError("store read failed", err)))
      .finally(() => {
        reading = false;
        send();
      });
  };
  return (fresh) => {
    if (!fresh && answeredThisTurn !== undefined) return answeredThisTurn;
    if (next === undefined) {
      next = waiting();
      setImmediate(send); // after this turn's I/O, so that the requests arriving together share the read
    }
    return next.promise;
  };
}

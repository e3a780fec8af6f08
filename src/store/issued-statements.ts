import { allInOrder } from "./all-in-order.js";
import type { Queryer } from "./driver.js";

/** A transaction's queryer that keeps every statement it issued, and waits for them all. */
export interface IssuedStatements {
  queryer: Queryer;
  /**
   * No statement may be issued any more (the driver is about to commit: a statement issued now
   * would run outside the transaction, so it fails instead); resolves once every statement
   * issued settled, and throws the first one's failure, in the order issued.
   */
  end(): Promise<void>;
}

const ignore = (): undefined => undefined;

/**
 * A transaction body need not wait for its last statements (Driver.write): the driver waits for
 * every one it issued before it reports the commit, and PostgreSQL's sends COMMIT behind them in
 * the same round trip. Each statement's failure is observed here at once, so that one nobody
 * awaited yet never surfaces as an unhandled rejection; end() reports it.
 */
export function issuedStatements(q: Queryer): IssuedStatements {
  const issued: Promise<unknown>[] = [];
  let ended = false;
  const keep = <T>(issue: () => Promise<T>): Promise<T> => {
    if (ended) return Promise.reject(new Error("a statement was issued after its transaction ended"));
    const statement = issue();
    statement.catch(ignore);
    issued.push(statement);
    return statement;
  };
  return {
    queryer: {
      all: (sql, params) => keep(() => q.all(sql, params)),
      run: (sql, params) => keep(() => q.run(sql, params)),
    },
    async end() {
      ended = true;
      await allInOrder(issued);
    },
  };
}

/**
 * Statements (or promises built on them) that a transaction body issues and leaves to the driver,
 * which waits for each statement before it reports the commit and fails the transaction with the
 * first failure: what derives from them is never awaited, so its rejection is observed here.
 */
export function leftToCommit(...pending: (Promise<unknown> | undefined)[]): void {
  for (const p of pending) p?.catch(ignore);
}

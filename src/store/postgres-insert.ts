import { allInOrder } from "./all-in-order.js";
import type { Queryer, Row, SqlValue } from "./driver.js";
import { rowValues, valuesSql } from "./values-sql.js";

/**
 * The row counts one statement may have, largest first: powers of two and the steps halfway
 * between, so that a batch of up to 20 rows takes at most two statements per table (11 rows:
 * 8 + 3, where powers of two alone took 8 + 2 + 1). Each statement costs the server an executor
 * start and end of its own, which counted under a group commit of a dozen submissions.
 */
const SIZES = [64, 48, 32, 24, 16, 12, 8, 6, 4, 3, 2, 1];

/**
 * PostgreSQL's Tx.insert: the rows in statements of the sizes above (15 rows: 12 + 3), sent
 * together in one round trip (the pool pipelines). So a table has at most twelve INSERT texts,
 * which the driver prepares once per connection, where a statement of exactly as many rows as
 * each commit had was a new text, parsed and planned at every commit (a fifth of the server's
 * CPU under repeated submissions). Rows as JSON or arrays would be one text, but the server
 * decoded them character by character, which cost more than the parsing it saved.
 */
export async function insertValues(
  q: Queryer,
  into: string,
  rows: readonly SqlValue[][],
  returning?: string,
): Promise<Row[]> {
  const statements: Promise<Row[]>[] = [];
  for (let i = 0; i < rows.length; ) {
    const n = SIZES.find((size) => size <= rows.length - i)!;
    statements.push(q.all(valuesSql(into, n, rows[i]!.length, returning), rowValues(rows, i, i + n)));
    i += n;
  }
  return (await allInOrder(statements)).flat();
}

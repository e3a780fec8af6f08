import { allInOrder } from "./all-in-order.js";
import type { Queryer, Row, SqlValue } from "./driver.js";
import { rowValues, valuesSql } from "./values-sql.js";

/** The row counts one statement may have, largest first. */
const SIZES = [64, 32, 16, 8, 4, 2, 1];

/**
 * PostgreSQL's Tx.insert: the rows in statements of the sizes above (15 rows: 8 + 4 + 2 + 1), sent
 * together in one round trip (the pool pipelines). So a table has at most seven INSERT texts,
 * which the driver prepares once per connection, where a statement of exactly as many rows as
 * each commit had was a new text, parsed and planned at every commit (a fifth of the server's
 * CPU under repeated submissions). Rows as JSON or arrays would be one text, but the server
 * decoded them character by character, which cost more than the parsing it saved.
 */
export async function insertValues(q: Queryer, into: string, rows: readonly SqlValue[][], returning?: string): Promise<Row[]> {
  const statements: Promise<Row[]>[] = [];
  for (let i = 0; i < rows.length; ) {
    const n = SIZES.find((size) => size <= rows.length - i)!;
    statements.push(q.all(valuesSql(into, n, rows[i]!.length, returning), rowValues(rows, i, i + n)));
    i += n;
  }
  return (await allInOrder(statements)).flat();
}

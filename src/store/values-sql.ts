import type { SqlValue } from "./driver.js";

/**
 * Texts already written, by their shape: the same batch sizes come back, and a driver finds a prepared statement by its
 * text.
 */
const texts = new Map<string, string>();

/** `INSERT INTO into VALUES (?, …), …` for `rows` rows of `columns` values each, as both drivers write it. */
export function valuesSql(into: string, rows: number, columns: number, returning?: string): string {
  const key = `${rows}:${columns}:${into}:${returning ?? ""}`;
  let sql = texts.get(key);
  if (sql === undefined) {
    const one = `(${Array.from({ length: columns }, () => "?").join(", ")})`;
    sql = `INSERT INTO ${into} VALUES ${Array.from({ length: rows }, () => one).join(", ")}${returning === undefined ? "" : ` RETURNING ${returning}`}`;
    texts.set(key, sql);
  }
  return sql;
}

/**
 * The values of rows[start, end) as one parameter list, row after row (a loop: slice().flat()'s generic path cost more
 * than binding them).
 */
export function rowValues(rows: readonly SqlValue[][], start: number, end: number): SqlValue[] {
  const values: SqlValue[] = [];
  for (let r = start; r < end; r++) for (const value of rows[r]!) values.push(value);
  return values;
}

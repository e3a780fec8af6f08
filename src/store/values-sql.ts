/** `INSERT INTO into VALUES (?, …), …` for `rows` rows of `columns` values each, as both drivers write it. */
export function valuesSql(into: string, rows: number, columns: number, returning?: string): string {
  const one = `(${Array.from({ length: columns }, () => "?").join(", ")})`;
  return `INSERT INTO ${into} VALUES ${Array.from({ length: rows }, () => one).join(", ")}${returning === undefined ? "" : ` RETURNING ${returning}`}`;
}

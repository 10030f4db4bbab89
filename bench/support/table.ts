/** Prints rows as an aligned text table (benchmarks print tables, not assertions). */
export function printTable(title: string, rows: Record<string, string | number>[]): void {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const cells = rows.map((row) => columns.map((column) => String(row[column] ?? "")));
  const widths = columns.map((column, index) => Math.max(column.length, ...cells.map((row) => row[index]!.length)));
  const line = (values: string[]) => values.map((value, index) => value.padStart(widths[index]!)).join("  ");
  console.log(`\n${title}`);
  console.log(line(columns));
  console.log(widths.map((width) => "-".repeat(width)).join("  "));
  for (const row of cells) console.log(line(row));
}

/** Rows as a Markdown table (for the docs: biome aligns its columns). */
export function markdownTable(rows: Record<string, string | number>[]): string {
  const columns = Object.keys(rows[0] ?? {});
  return [`| ${columns.join(" | ")} |`, `|${columns.map(() => "---").join("|")}|`, ...rows.map((row) => `| ${columns.map((c) => row[c]).join(" | ")} |`)].join(
    "\n",
  );
}

/** Rows under `title`: aligned text, or Markdown (`--markdown`, for the docs); nothing without rows. */
export function showTable(title: string, rows: Record<string, string | number>[], markdown: boolean): void {
  if (rows.length === 0) return;
  if (!markdown) printTable(title, rows);
  else console.log(`\n${title}\n\n${markdownTable(rows)}`);
}

import { markdownText } from "./markdown-text.js";

/** How a column's cells line up; numbers read best right-aligned. */
export type ColumnAlign = "left" | "right";

/**
 * A column: its header and alignment. `isText`: its cells hold text from runs and files (names,
 * statuses), shown literally (`markdownText`); the other cells are agent-run's own figures.
 */
export type Column = { header: string; align: ColumnAlign; isText?: boolean };

/**
 * A Markdown table whose columns are padded to equal width, so it reads as an aligned plain-text
 * table in a terminal or log as well as rendered (`|` in cells is escaped, text cells shown as text).
 */
export function formatMarkdownTable(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
): string {
  const cells = rows.map((row) =>
    columns.map((column, index) =>
      column.isText === true ? markdownText(row[index] ?? "") : escapeCell(row[index] ?? ""),
    ),
  );
  const widths = columns.map((column, index) =>
    Math.max(3, column.header.length, ...cells.map((row) => (row[index] ?? "").length)),
  );
  const render = (row: readonly string[]) =>
    `| ${row
      .map((cell, index) => {
        const width = widths[index] ?? 0;
        return columns[index]?.align === "right" ? cell.padStart(width) : cell.padEnd(width);
      })
      .join(" | ")} |`;
  const rule = columns.map((column, index) => {
    const dashes = "-".repeat((widths[index] ?? 3) - 1);
    return column.align === "right" ? `${dashes}:` : `${dashes}-`;
  });
  return [render(columns.map((column) => column.header)), render(rule), ...cells.map(render)].join(
    "\n",
  );
}

function escapeCell(text: string): string {
  return text.replace(/\s+/g, " ").replaceAll("|", "\\|");
}

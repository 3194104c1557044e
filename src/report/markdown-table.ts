import { inlineText, type TextStyle } from "./markdown-text.js";

/** How a column's cells line up; numbers read best right-aligned. */
export type ColumnAlign = "left" | "right";

/**
 * A column: its header and alignment. `isText`: its cells hold text from runs and files (names,
 * statuses), shown literally (`inlineText`); the other cells are agent-run's own figures.
 */
export type Column = { header: string; align: ColumnAlign; isText?: boolean };

/**
 * A Markdown table whose columns are padded to equal width, so it reads as an aligned plain-text
 * table in a terminal or log as well as rendered (`|` in cells is escaped, so the columns hold, and
 * text cells are written in `style`).
 */
export function formatMarkdownTable(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  style: TextStyle = "markdown",
): string {
  const cell = (column: Column, text: string) => {
    if (column.isText !== true) return escapeCell(text);
    // markdownText escapes `|` itself; plain text still needs it escaped to keep the columns.
    return style === "markdown" ? inlineText(text, style) : escapeCell(inlineText(text, style));
  };
  const cells = rows.map((row) => columns.map((column, index) => cell(column, row[index] ?? "")));
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

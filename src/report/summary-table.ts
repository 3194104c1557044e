import { totalTokens } from "../model/model-client.js";
import { formatCost, formatCount, formatDuration } from "./format.js";
import type { TaskSummary } from "./summary.js";

const HEADERS = ["task", "status", "steps", "tokens", "cost", "files", "duration"] as const;
const RIGHT_ALIGNED = new Set([2, 3, 4, 5, 6]);

/** The end-of-batch table: aligned plain text, one row per task, then totals (duration: wall time). */
export function formatSummaryTable(summaries: readonly TaskSummary[], wallTimeMs: number): string {
  const rows = summaries.map((summary) => [
    summary.name,
    summary.status,
    String(summary.steps),
    formatCount(totalTokens(summary.usage)),
    formatCost(summary.costUsd),
    String(summary.changedFiles.length),
    formatDuration(summary.durationMs),
  ]);
  const completed = summaries.filter((summary) => summary.status === "completed").length;
  const costs = summaries.map((summary) => summary.costUsd);
  const totalCost = costs.every((cost) => cost === null)
    ? null
    : costs.reduce<number>((sum, cost) => sum + (cost ?? 0), 0);
  rows.push([
    "total",
    `${completed}/${summaries.length} completed`,
    String(summaries.reduce((sum, summary) => sum + summary.steps, 0)),
    formatCount(summaries.reduce((sum, summary) => sum + totalTokens(summary.usage), 0)),
    formatCost(totalCost),
    String(summaries.reduce((sum, summary) => sum + summary.changedFiles.length, 0)),
    formatDuration(wallTimeMs),
  ]);
  const table = [[...HEADERS], ...rows];
  const widths = HEADERS.map((_, column) =>
    Math.max(...table.map((row) => (row[column] ?? "").length)),
  );
  const render = (row: readonly string[]) =>
    row
      .map((cell, column) => {
        const width = widths[column] ?? 0;
        return RIGHT_ALIGNED.has(column) ? cell.padStart(width) : cell.padEnd(width);
      })
      .join("  ")
      .trimEnd();
  const separator = widths.map((width) => "-".repeat(width)).join("  ");
  return [
    render(table[0] ?? []),
    separator,
    ...rows.slice(0, -1).map(render),
    separator,
    render(rows.at(-1) ?? []),
  ].join("\n");
}

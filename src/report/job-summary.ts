import { basename } from "node:path";
import { formatCost, formatCount, formatDuration, oneLine } from "../format.js";
import type { ChangedFile } from "../workspace/changes.js";
import { markdownText } from "./markdown-text.js";
import { runLabel } from "./run-folders.js";
import type { TaskSummary } from "./summary.js";

const MAX_HEADLINE_CHARS = 300;

/**
 * The job summary: the report, then each task's changed files, folded. GitHub drops a step's
 * summary over 1 MiB whole, so each task lists at most `MAX_FILES_SHOWN` files, and the file
 * lists are left out when the summary would still be too large; `summary.json` has them all.
 * File names and statuses are shown as text (`markdownText`), never as Markdown or HTML.
 */
export function jobSummary(
  reportMarkdown: string,
  summaries: readonly TaskSummary[],
  viewFile?: string,
): string {
  const head = ["## agent-run", "", reportMarkdown, "", ...viewerLines(viewFile)];
  const full = [...head, "### Changed files", "", ...summaries.map(changedFilesDetails), ""];
  const text = full.join("\n");
  if (Buffer.byteLength(text) <= MAX_SUMMARY_BYTES) return text;
  const note =
    "The changed files are left out: listed here they would pass GitHub's 1 MiB limit for a job summary. Each task's `summary.json` lists them.";
  return [...head, "### Changed files", "", note, ""].join("\n");
}

/**
 * Where `run --view` wrote the viewer: a file path, shown as code (never a link GitHub would
 * follow); the action uploads the output folder, so the viewer is in the artifact too.
 */
function viewerLines(viewFile: string | undefined): string[] {
  if (viewFile === undefined) return [];
  return [
    `**Run viewer:** \`${basename(viewFile)}\` in the output folder (${markdownText(viewFile)}); with the action, it is in the uploaded artifact. Download it and open it in a browser: it is one HTML file and needs no network.`,
    "",
  ];
}

/** Files listed per task in the job summary; the rest are counted. */
const MAX_FILES_SHOWN = 100;

/** Under GitHub's 1 MiB per step, with room for what the step writes besides. */
const MAX_SUMMARY_BYTES = 900 * 1024;

function changedFilesDetails(summary: TaskSummary): string {
  const files = summary.changedFiles
    .slice(0, MAX_FILES_SHOWN)
    .map(
      (file) =>
        `| ${markdownText(file.path)} | ${markdownText(describeChange(file))} | ${file.binary ? "binary" : `+${file.additions} −${file.deletions}`} |`,
    );
  const more = summary.changedFiles.length - files.length;
  const rest = more > 0 ? [`\n${formatCount(more)} more; \`summary.json\` lists every file.`] : [];
  const body =
    files.length === 0
      ? "No files changed."
      : ["| file | change | lines |", "| --- | --- | --- |", ...files, ...rest].join("\n");
  const headline = `${runLabel(summary)}: ${summary.status}, ${summary.changedFiles.length} changed, ${formatCost(summary.costUsd)}, ${formatDuration(summary.durationMs)}`;
  return `<details><summary>${escapeHtml(oneLine(headline, MAX_HEADLINE_CHARS))}</summary>\n\n${body}\n\n</details>`;
}

/** A file's status, with its mode change when it has one: `modified, mode 100644 → 100755`. */
function describeChange(file: ChangedFile): string {
  return file.mode === undefined
    ? file.status
    : `${file.status}, mode ${file.mode.before} → ${file.mode.after}`;
}

/** Inside `<summary>` (an HTML block) Markdown is not parsed; only HTML's own characters matter. */
function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

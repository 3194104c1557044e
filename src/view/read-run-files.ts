import { join } from "node:path";
import { formatCount } from "../format.js";
import { readHead } from "../fs/read-head.js";
import { DIVERGENCE_FILE, DivergenceJsonSchema } from "../replay/divergence-json.js";
import type { RunChangedFile } from "../report/run-summary.js";
import { PATCH_FILE } from "../run/run-folder.js";
import { splitPatch } from "./patch-files.js";
import type { TextClipper } from "./view-bounds.js";
import type { ViewBounds, ViewChanges, ViewDivergence, ViewFile } from "./view-data.js";

/** Most bytes of `divergence.json` read: its texts are bounded by the page's fields anyway. */
const MAX_DIVERGENCE_BYTES = 8 * 1024 * 1024;

/**
 * A run's changed files (as `summary.json` lists them, at most `maxChangedFiles`) with their diff
 * from `changes.patch`: the patch's text is bounded like any field, so a huge diff is cut, and
 * the note says so.
 */
export async function readChanges(
  folder: string,
  listed: readonly RunChangedFile[],
  context: { clip: TextClipper; bounds: ViewBounds },
): Promise<ViewChanges> {
  const { files, note, hidden } = await readDiffs(folder, listed, context);
  const more =
    hidden > 0
      ? `${formatCount(hidden)} more changed files are not shown (summary.json lists them).`
      : null;
  return { files, note: [note, more].filter((text) => text !== null).join(" ") || null };
}

/**
 * The first `maxChangedFiles` files, the listed ones first, with their diff lines from
 * `changes.patch`, and how many more there are.
 */
async function readDiffs(
  folder: string,
  listed: readonly RunChangedFile[],
  context: { clip: TextClipper; bounds: ViewBounds },
): Promise<ViewChanges & { hidden: number }> {
  // Only the first `max` files are built (each listed path is clipped); the rest are counted.
  const max = context.bounds.maxChangedFiles;
  const kept = listed.slice(0, max);
  const head = await readHead(join(folder, PATCH_FILE), context.bounds.maxPatchBytes);
  if (head === undefined || "problem" in head) {
    const why =
      head === undefined
        ? "The run folder has no changes.patch."
        : `changes.patch was not read: ${head.problem}.`;
    return {
      files: kept.map((file) => viewFile(file, [], context.clip)),
      note: listed.length === 0 ? null : why,
      hidden: listed.length - kept.length,
    };
  }
  const patch = context.clip(head.text);
  const parts = splitPatch(patch.text, context.bounds.maxDiffLineChars);
  const byPath = new Map(parts.map((part) => [part.path, part]));
  const files = kept.map((file) =>
    viewFile(file, byPath.get(file.path)?.lines ?? [], context.clip),
  );
  let hidden = listed.length - kept.length;
  const listedPaths = new Set(listed.map((file) => file.path));
  for (const part of parts) {
    if (listedPaths.has(part.path)) continue;
    if (files.length >= max) {
      hidden += 1;
      continue;
    }
    // A file the patch has and summary.json does not list (an older or edited summary).
    files.push({
      ...part,
      additions: count(part.lines, "+"),
      deletions: count(part.lines, "-"),
      linesCut: 0,
    });
  }
  const note =
    patch.cut > 0 || head.isCut
      ? `The diff shown is cut; changes.patch (${formatCount(head.totalBytes)} bytes) has all of it.`
      : null;
  return { files, note, hidden };
}

function viewFile(file: RunChangedFile, lines: string[], clip: TextClipper): ViewFile {
  const shown = count(lines, "+") + count(lines, "-");
  return {
    path: clip(file.path).text,
    status: file.status,
    binary: file.binary,
    mode: file.mode,
    additions: file.additions,
    deletions: file.deletions,
    lines,
    linesCut: file.binary ? 0 : Math.max(0, file.additions + file.deletions - shown),
  };
}

function count(lines: readonly string[], prefix: string): number {
  return lines.filter((line) => line.startsWith(prefix)).length;
}

/**
 * A replay's `divergence.json`, or null when the folder has none (no replay) or it does not read
 * as one; its texts are bounded.
 */
export async function readDivergence(
  folder: string,
  clip: TextClipper,
): Promise<ViewDivergence | { problem: string } | null> {
  const head = await readHead(join(folder, DIVERGENCE_FILE), MAX_DIVERGENCE_BYTES);
  if (head === undefined) return null;
  if ("problem" in head) return { problem: `divergence.json: ${head.problem}` };
  let json: unknown;
  try {
    json = JSON.parse(head.text);
  } catch {
    return { problem: "divergence.json: not valid JSON" };
  }
  const parsed = DivergenceJsonSchema.safeParse(json);
  if (!parsed.success) return { problem: "divergence.json: not in the shape agent-run writes" };
  const { first_divergence: first } = parsed.data;
  return {
    comparedSteps: parsed.data.compared_steps,
    divergentSteps: parsed.data.divergent_steps.slice(0, 10_000),
    first:
      first === null
        ? null
        : {
            step: first.step,
            toolName: first.tool_name,
            subagent:
              first.subagent === null
                ? null
                : { toolUseId: first.subagent.tool_use_id, step: first.subagent.step },
            recorded: clip(first.recorded),
            replayed: clip(first.replayed),
            diff: clip(first.diff),
          },
  };
}

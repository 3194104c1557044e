import picomatch from "picomatch";
import type { ChangedFile } from "../workspace/changes.js";
import { failed, passed } from "./outcome.js";
import type { Check, CheckOutcome } from "./types.js";

type ChangedFilesCheck = Extract<Check, { kind: "changed_files" }>;

/** Most paths or globs listed in one message; the rest are counted. */
const MAX_LISTED = 10;

/**
 * Checks the run's changes (added, modified and deleted files alike) against `only`, `must` and
 * `max`; the message names every expectation that failed, with the offending paths or globs.
 */
export function evaluateChangedFilesCheck(
  check: ChangedFilesCheck,
  changedFiles: readonly ChangedFile[],
): CheckOutcome {
  const paths = changedFiles.map((file) => file.path);
  const problems: string[] = [];
  if (check.only !== undefined) {
    const isAllowed = picomatch(check.only, { dot: true });
    const outside = paths.filter((path) => !isAllowed(path));
    if (outside.length > 0) {
      problems.push(`changed outside ${list(check.only)}: ${list(outside)}`);
    }
  }
  if (check.must !== undefined) {
    const unmatched = check.must.filter((glob) => {
      const isMatch = picomatch(glob, { dot: true });
      return !paths.some((path) => isMatch(path));
    });
    if (unmatched.length > 0) problems.push(`no changed file matches ${list(unmatched)}`);
  }
  if (check.max !== undefined && paths.length > check.max) {
    problems.push(`${countFiles(paths.length)} changed, more than max ${check.max}`);
  }
  if (problems.length > 0) return failed(problems.join("; "));
  return passed(describeChange(paths));
}

function describeChange(paths: readonly string[]): string {
  if (paths.length === 0) return "no files changed, as expected";
  return `${countFiles(paths.length)} changed as expected: ${list(paths)}`;
}

function countFiles(count: number): string {
  return count === 1 ? "1 file" : `${count} files`;
}

function list(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LISTED).join(", ");
  const more = items.length - MAX_LISTED;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

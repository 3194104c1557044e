import type { GitDirChange } from "../workspace/git-dir-state.js";
import type { CheckResult } from "./types.js";

/** Entries named in the check's message; the rest are counted (summary.json lists them all). */
const NAMED_CHANGES = 10;

/**
 * The check every run gets when something under a `.git` changed: it fails unless the task sets
 * `allow_git_changes: true`. Undefined when nothing there changed.
 */
export function gitChangesCheck(
  changes: readonly GitDirChange[],
  isAllowed: boolean,
): CheckResult | undefined {
  if (changes.length === 0) return undefined;
  const named = changes
    .slice(0, NAMED_CHANGES)
    .map((change) => `${change.path} (${change.status})`);
  const more = changes.length > NAMED_CHANGES ? `, and ${changes.length - NAMED_CHANGES} more` : "";
  const what = `${changes.length} ${changes.length === 1 ? "entry" : "entries"} under .git (or the hooks folder its config names) changed: ${named.join(", ")}${more}`;
  return {
    name: "git unchanged",
    kind: "git_unchanged",
    passed: isAllowed,
    message: isAllowed
      ? `${what} (allowed by allow_git_changes)`
      : `${what}; the task does not allow it (allow_git_changes: true would)`,
    output: null,
    line: 1,
    durationMs: 0,
  };
}

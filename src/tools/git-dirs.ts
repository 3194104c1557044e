import { isUtf8 } from "node:buffer";
import { isSameOrInside, realPathOr } from "../fs/real-path.js";
import {
  configuredHooksFolder,
  findGitEntries,
  MAX_WALKED_FOLDERS,
} from "../workspace/git-entries.js";

/**
 * What the sandbox binds read-only in an in-place workspace: every `.git` in it (see
 * `findGitEntries`: past its bound it throws, rather than leave one writable) and the output
 * folders strictly inside it (the batch's `--out` and the task's run folder), so that a command can change neither a repository (its hooks and config
 * run later, outside the sandbox) nor what agent-run records.
 */
export async function sandboxReadOnlyPaths(
  workspace: string,
  outputFolders: readonly string[],
  maxFolders = MAX_WALKED_FOLDERS,
): Promise<string[]> {
  const root = realPathOr(workspace);
  const outputs = outputFolders
    .map((folder) => realPathOr(folder))
    .filter((folder) => folder !== root && isSameOrInside(folder, root));
  const gitEntries = (await findGitEntries(root, maxFolders)).map((path) => {
    // A bind takes its path as a string: one that is not UTF-8 cannot be bound, so no command runs.
    if (!isUtf8(path)) {
      throw new Error(
        `${path.toString("utf8")} cannot be made read-only in the sandbox: its name is not UTF-8; rename it, or run on a copy (without --in-place)`,
      );
    }
    return path.toString("utf8");
  });
  const hooks = configuredHooksFolder(root);
  return [...gitEntries, ...(hooks === undefined ? [] : [hooks]), ...new Set(outputs)];
}

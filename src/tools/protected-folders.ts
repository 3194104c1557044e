import { statSync } from "node:fs";
import { isSameOrInside, realPathOr, resolveRealPath } from "../fs/real-path.js";
import { ToolError } from "./define-tool.js";

/** One of agent-run's own folders (the output folder, the run folder), which the file tools refuse. */
export type ProtectedFolder = {
  /** Its real path. */
  path: string;
  /** Its identity when it was protected, so that moving it within the workspace does not hide it. */
  dev?: number;
  ino?: number;
};

/** Notes each folder's real path and identity, once, when the tools are made. */
export function protectFolders(paths: readonly string[]): ProtectedFolder[] {
  return paths.map((path) => {
    const real = realPathOrResolved(path);
    try {
      const { dev, ino } = statSync(real);
      return { path: real, dev, ino };
    } catch {
      return { path: real };
    }
  });
}

/**
 * The folders a walk of the workspace at `realRoot` refuses: those strictly inside it. One that
 * is the workspace or holds it (a copy in its run folder) is kept out by the confinement instead.
 */
export function foldersToRefuse(
  realRoot: string,
  folders: readonly ProtectedFolder[],
): ProtectedFolder[] {
  return folders.filter(
    (folder) => folder.path !== realRoot && isSameOrInside(folder.path, realRoot),
  );
}

/** The protected folder that the real path `path` is, or lies in. */
export function folderHolding(
  folders: readonly ProtectedFolder[],
  path: string,
): ProtectedFolder | undefined {
  return folders.find((folder) => isSameOrInside(path, folder.path));
}

/** The protected folder that a folder with this identity is. */
export function folderWithIdentity(
  folders: readonly ProtectedFolder[],
  info: { dev: number; ino: number },
): ProtectedFolder | undefined {
  return folders.find((folder) => folder.ino === info.ino && folder.dev === info.dev);
}

/** The model-facing refusal; `input` is the path as sent (quoted), `folder` the one it hit, as shown. */
export function protectedFolderError(input: string, folder: string): ToolError {
  return new ToolError(
    `path ${input} is inside "${folder}", agent-run's own output folder (transcripts, summaries, reports); the file tools cannot read or change it`,
  );
}

/** Whether a workspace-relative path goes through a `.git` (in any case, as some file systems). */
export function isUnderGit(parts: readonly string[]): boolean {
  return parts.some((name) => name.toLowerCase() === ".git");
}

/** The tool error for a write under a `.git`, which the task does not allow. */
export function gitWriteError(input: string): ToolError {
  return new ToolError(
    `path ${input} is under a .git: the file tools do not write there (a hook or config there would run at the next git command); allow_git_changes: true in the task allows it`,
  );
}

function realPathOrResolved(path: string): string {
  try {
    return resolveRealPath(path);
  } catch {
    return realPathOr(path);
  }
}

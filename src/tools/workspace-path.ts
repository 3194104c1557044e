import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { clip } from "../format.js";
import { ToolError } from "./define-tool.js";

/** Longest absolute path Linux takes (PATH_MAX); a longer one names no file. */
const MAX_PATH_BYTES = 4_096;

/**
 * Turns a path the model sent into the real absolute path it names, so tools never act outside
 * the workspace. Relative paths start at the root; absolute ones must already be inside it.
 * Symbolic links are resolved (through the deepest existing ancestor, so paths that do not exist
 * yet work too); the result is the real path, which tools can use without following links again.
 * Throws `ToolError` for NUL bytes, `..` escapes, outside absolute paths, links leading outside
 * and dangling links.
 */
export async function resolveWorkspacePath(
  workspaceRoot: string,
  userPath: string,
): Promise<string> {
  const root = await realpath(workspaceRoot);
  const { shown, lexical } = lexicalPath(root, userPath);
  const real = await realpathOfDeepestAncestor(lexical, shown);
  if (!isInside(root, real)) {
    throw new ToolError(
      `path ${shown} leads through a symbolic link to outside the workspace; use a path inside the workspace`,
    );
  }
  return real;
}

/**
 * The checks every path the model sends gets before any file system call: no NUL byte, inside
 * the (real) root as written, at most PATH_MAX. Returns the absolute path as written and the
 * input as quoted in errors: clipped, as it may be megabytes long.
 */
export function lexicalPath(root: string, userPath: string): { shown: string; lexical: string } {
  const shown = clip(JSON.stringify(userPath));
  if (userPath.includes("\0")) throw new ToolError(`path ${shown} contains a NUL byte`);
  const lexical = resolve(root, userPath);
  if (!isInside(root, lexical)) {
    throw new ToolError(
      `path ${shown} is outside the workspace; use a path relative to the workspace root`,
    );
  }
  if (Buffer.byteLength(lexical) > MAX_PATH_BYTES) {
    // Before any walk over its folders, which would take one step per folder.
    throw new ToolError(`path ${shown} is too long for the file system`);
  }
  return { shown, lexical };
}

/**
 * Shows an absolute path the way the model should write it: relative to the root, `/`-separated,
 * and clipped (a path that does not exist yet is as long as the model made it).
 */
export function toDisplayPath(workspaceRoot: string, absolutePath: string): string {
  const rel = relative(workspaceRoot, absolutePath);
  return rel === "" ? "." : clip(rel.split(sep).join("/"));
}

function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

/** realpath of the longest existing prefix, with the missing tail appended unchanged. */
async function realpathOfDeepestAncestor(path: string, shown: string): Promise<string> {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(await realpath(current), ...missing.reverse());
    } catch (error) {
      if (!isNotFound(error)) throw pathError(error, shown);
      if (await existsAsLink(current)) {
        throw new ToolError(`path ${shown} is a symbolic link whose target does not exist`);
      }
      const parent = dirname(current);
      if (parent === current) throw error;
      missing.push(basename(current));
      current = parent;
    }
  }
}

async function existsAsLink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch {
    return false;
  }
}

function isNotFound(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}

function pathError(error: unknown, shown: string): unknown {
  switch (errorCode(error)) {
    case "ELOOP":
      return new ToolError(`path ${shown} has too many levels of symbolic links`);
    case "EACCES":
      return new ToolError(`path ${shown} is not accessible (permission denied)`);
    case "ENAMETOOLONG":
      // The system's message would quote the whole path back.
      return new ToolError(`path ${shown} is too long for the file system`);
    default:
      return error;
  }
}

/** The `code` of a Node.js system error (`ENOENT`, `EISDIR`…), if there is one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}

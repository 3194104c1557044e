import { stat } from "node:fs/promises";
import { ConfigError, hasErrorCode, messageOf } from "../errors.js";

/**
 * What is at a path the user gave (links followed): a folder, a file, or nothing. Any other
 * failure to look is a `ConfigError` naming the path.
 */
export async function pathKind(path: string): Promise<"file" | "folder" | "missing"> {
  try {
    const stats = await stat(path);
    return stats.isDirectory() ? "folder" : "file";
  } catch (error) {
    if (isMissing(error)) return "missing";
    throw new ConfigError(`${path}: cannot read: ${messageOf(error)}`, error);
  }
}

function isMissing(error: unknown): boolean {
  return hasErrorCode(error, "ENOENT", "ENOTDIR");
}

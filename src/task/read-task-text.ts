import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Task files hold a prompt and settings; anything bigger is almost surely the wrong file. */
const MAX_TASK_FILE_BYTES = 1_000_000;

/** A task file's text, or one sentence saying why it cannot be read and what to do. */
type TaskText = { ok: true; text: string } | { ok: false; message: string };

/**
 * Reads `file` as UTF-8 text, refusing folders, oversized, binary and non-UTF-8 files. Synchronous:
 * a batch reads its task files before anything else runs, and here a thread-pool round trip costs
 * more than the read itself.
 */
export function readTaskText(file: string): TaskText {
  try {
    const info = statSync(file);
    if (info.isDirectory()) {
      return fail(
        `is a folder, not a task file; pass the task files inside it, e.g. ${join(file, "*.yaml")}`,
      );
    }
    if (!info.isFile()) return fail("is not a regular file; pass a YAML task file");
    if (info.size > MAX_TASK_FILE_BYTES) {
      return fail(
        `is ${(info.size / 1_000_000).toFixed(1)} MB, over the 1 MB limit for task files; check the path, and keep long instructions in the workspace`,
      );
    }
    return decode(readFileSync(file));
  } catch (error) {
    return fail(describeReadError(error));
  }
}

function decode(bytes: Buffer): TaskText {
  if (hasUtf16Bom(bytes)) return fail("is saved as UTF-16; save it as UTF-8");
  if (bytes.includes(0)) return fail("is a binary file, not a YAML task file; check the path");
  try {
    // The decoder drops a UTF-8 byte-order mark (editors on Windows write one), so lines and
    // columns count from the first real character.
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    return fail("is not valid UTF-8 text; save it as UTF-8");
  }
}

function hasUtf16Bom(bytes: Buffer): boolean {
  return (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
}

function describeReadError(error: unknown): string {
  const code = error instanceof Error && "code" in error ? error.code : undefined;
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
      return "file not found; check the path (relative paths start from the current folder)";
    case "EACCES":
    case "EPERM":
      return "cannot read the file (permission denied); check its permissions";
    default:
      return `cannot read the file: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function fail(message: string): TaskText {
  return { ok: false, message };
}

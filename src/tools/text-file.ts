import { fsFailure } from "./confined-entry.js";
import { type FileScope, type Located, locate } from "./confined-open.js";
import { ToolError } from "./define-tool.js";

/** Largest file read_file and edit_file load into memory; bigger files are for bash (head, sed). */
export const MAX_TEXT_FILE_BYTES = 10 * 1024 * 1024;

/** How far into a file a NUL byte marks it as binary (what git and grep look at, roughly). */
const BINARY_SNIFF_BYTES = 8 * 1024;

/**
 * Reads a regular UTF-8 text file of the workspace for read_file and edit_file, confined to it
 * (see `locate`). Directories, FIFOs and devices are refused before opening (so a FIFO cannot
 * hang the run), as are binary and oversized files. Returns the text and how to show the path.
 */
export async function readTextFile(
  scope: FileScope,
  userPath: string,
): Promise<{ text: string; shown: string }> {
  const located = await locate(scope, userPath, "read");
  try {
    return { text: await readLocated(located), shown: located.shown };
  } finally {
    await located.close();
  }
}

/**
 * Writes `content` to a file of the workspace atomically: a temp file in the same folder, then a
 * rename, so a crash never leaves half a file. Creates missing parent folders and keeps an
 * existing file's mode. Returns how to show the path.
 */
export async function writeTextFileAtomic(
  scope: FileScope,
  userPath: string,
  content: string,
): Promise<string> {
  return updateTextFile(scope, userPath, "write", () => content);
}

/**
 * Reads a text file and writes back what `change` makes of it, through the same pinned folder
 * (`change` gets the text and the path as shown, and may throw a `ToolError`). Returns the path
 * as shown.
 */
export async function editTextFile(
  scope: FileScope,
  userPath: string,
  change: (text: string, shown: string) => string,
): Promise<string> {
  return updateTextFile(scope, userPath, "edit", change);
}

async function updateTextFile(
  scope: FileScope,
  userPath: string,
  kind: "write" | "edit",
  change: (text: string, shown: string) => string,
): Promise<string> {
  const located = await locate(scope, userPath, kind);
  try {
    const { info, shown } = located;
    const before = kind === "edit" ? await readLocated(located) : "";
    if (located.isRoot || info?.isDirectory() === true) {
      throw new ToolError(`"${shown}" is a directory; give a file path`);
    }
    if (info !== undefined && !info.isFile()) {
      throw new ToolError(`"${shown}" is not a regular file; it cannot be written`);
    }
    await located.replace(
      change(before, shown),
      info === undefined ? undefined : info.mode & 0o7777,
    );
    return shown;
  } finally {
    await located.close();
  }
}

/** "0 lines", "1 line", "12 lines", counted as an editor does (a final newline adds no line). */
export function describeLineCount(text: string): string {
  const newlines = text.split("\n").length - 1;
  const lines = text === "" || text.endsWith("\n") ? newlines : newlines + 1;
  return lines === 1 ? "1 line" : `${lines} lines`;
}

async function readLocated(located: Located): Promise<string> {
  const { info, shown } = located;
  if (info === undefined) {
    throw new ToolError(`file "${shown}" does not exist; use list_files to see which files exist`);
  }
  if (located.isRoot || info.isDirectory()) {
    throw new ToolError(
      `"${shown}" is a directory, not a file; use list_files to see what it holds`,
    );
  }
  if (!info.isFile()) {
    throw new ToolError(
      `"${shown}" is not a regular file (it is a FIFO, socket or device); only regular files can be read`,
    );
  }
  const { handle, info: opened } = await located.openForReading();
  try {
    if (opened.size > MAX_TEXT_FILE_BYTES) {
      throw new ToolError(
        `"${shown}" is ${opened.size} bytes, more than the ${MAX_TEXT_FILE_BYTES} bytes this tool loads; use bash (head, tail, sed -n '100,200p', grep) to look at parts of it`,
      );
    }
    const bytes = await handle.readFile().catch((error: unknown) => {
      throw fsFailure(error, shown, "read");
    });
    return decodeText(bytes, shown);
  } finally {
    await handle.close();
  }
}

function decodeText(bytes: Uint8Array, shown: string): string {
  const binary = `"${shown}" looks like a binary file (not UTF-8 text), so it cannot be shown or edited here; use bash, e.g. \`file\` or \`xxd | head\`, to inspect it`;
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) throw new ToolError(binary);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ToolError(binary);
  }
}

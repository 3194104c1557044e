import { randomUUID } from "node:crypto";
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ToolError } from "./define-tool.js";
import { errorCode } from "./workspace-path.js";

/** Largest file read_file and edit_file load into memory; bigger files are for bash (head, sed). */
export const MAX_TEXT_FILE_BYTES = 10 * 1024 * 1024;

/** How far into a file a NUL byte marks it as binary (what git and grep look at, roughly). */
const BINARY_SNIFF_BYTES = 8 * 1024;

/**
 * Reads a regular UTF-8 text file for read_file and edit_file. `path` is a real path from
 * `resolveWorkspacePath`; `shown` names it in messages. Directories, FIFOs and devices are refused
 * before opening (so a FIFO cannot hang the run), as are binary and oversized files.
 */
export async function readTextFile(path: string, shown: string): Promise<string> {
  const info = await statOrExplain(path, shown);
  if (info.isDirectory()) {
    throw new ToolError(
      `"${shown}" is a directory, not a file; use list_files to see what it holds`,
    );
  }
  if (!info.isFile()) {
    throw new ToolError(
      `"${shown}" is not a regular file (it is a FIFO, socket or device); only regular files can be read`,
    );
  }
  if (info.size > MAX_TEXT_FILE_BYTES) {
    throw new ToolError(
      `"${shown}" is ${info.size} bytes, more than the ${MAX_TEXT_FILE_BYTES} bytes this tool loads; use bash (head, tail, sed -n '100,200p', grep) to look at parts of it`,
    );
  }
  return decodeText(await readFile(path), shown);
}

/**
 * Writes `content` to `path` atomically: a temp file in the same folder, then a rename, so a crash
 * never leaves half a file. Creates missing parent folders and keeps an existing file's mode.
 */
export async function writeTextFileAtomic(
  path: string,
  content: string,
  shown: string,
): Promise<void> {
  const folder = dirname(path);
  await makeFolder(folder, shown);
  const mode = await existingFileMode(path, shown);
  const temp = join(folder, `.${basename(path)}.${randomUUID().slice(0, 8)}.tmp`);
  try {
    await writeFile(temp, content, { flag: "wx" });
    if (mode !== undefined) await chmod(temp, mode);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** "0 lines", "1 line", "12 lines", counted as an editor does (a final newline adds no line). */
export function describeLineCount(text: string): string {
  const newlines = text.split("\n").length - 1;
  const lines = text === "" || text.endsWith("\n") ? newlines : newlines + 1;
  return lines === 1 ? "1 line" : `${lines} lines`;
}

async function statOrExplain(path: string, shown: string) {
  try {
    return await stat(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") {
      throw new ToolError(
        `file "${shown}" does not exist; use list_files to see which files exist`,
      );
    }
    if (errorCode(error) === "EACCES")
      throw new ToolError(`"${shown}" is not readable (permission denied)`);
    throw error;
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

async function makeFolder(folder: string, shown: string): Promise<void> {
  try {
    await mkdir(folder, { recursive: true });
  } catch (error) {
    if (errorCode(error) === "EEXIST" || errorCode(error) === "ENOTDIR") {
      throw new ToolError(`cannot create the folder for "${shown}": part of its path is a file`);
    }
    throw error;
  }
}

async function existingFileMode(path: string, shown: string): Promise<number | undefined> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new ToolError(`"${shown}" is a directory; give a file path`);
    if (!info.isFile())
      throw new ToolError(`"${shown}" is not a regular file; it cannot be written`);
    return info.mode & 0o7777;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

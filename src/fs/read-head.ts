import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { hasErrorCode, messageOf } from "../errors.js";

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;

/** The start of a file: its first bytes as UTF-8, and how many bytes the file has in all. */
export type FileHead = { text: string; totalBytes: number; isCut: boolean };

/**
 * Reads at most `maxBytes` of a file a run folder holds, as hostile input: a symbolic link is not
 * followed (a `changes.patch` linked to `~/.ssh/id_rsa` is not read), and anything but a regular
 * file (a FIFO that would block, a device) is refused. Returns undefined when the file is missing,
 * or why it was not read.
 */
export async function readHead(
  path: string,
  maxBytes: number,
): Promise<FileHead | { problem: string } | undefined> {
  const read = await readBytes(path, maxBytes);
  if (read === undefined || "problem" in read) return read;
  const text = new TextDecoder().decode(read.bytes);
  return { text, totalBytes: read.totalBytes, isCut: read.totalBytes > read.bytes.length };
}

/**
 * A whole file a run folder holds (`summary.json`, `transcript.jsonl`, `changes.patch`), read as
 * `readHead` reads: undefined when it is missing; an Error saying why when it is a link, not a
 * regular file, or larger than `maxBytes` (a forged file must not take the memory).
 */
export async function readWholeFile(path: string, maxBytes: number): Promise<Buffer | undefined> {
  const read = await readBytes(path, maxBytes);
  if (read === undefined) return undefined;
  if ("problem" in read) throw new Error(read.problem);
  if (read.totalBytes > read.bytes.length) {
    throw new Error(
      `${read.totalBytes} bytes, over the ${maxBytes} agent-run reads of such a file`,
    );
  }
  return read.bytes;
}

async function readBytes(
  path: string,
  maxBytes: number,
): Promise<{ bytes: Buffer; totalBytes: number } | { problem: string } | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) return undefined;
    if (hasErrorCode(error, "ELOOP")) return { problem: "it is a symbolic link; not followed" };
    return { problem: messageOf(error) };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { problem: "not a regular file" };
    const length = Math.min(stats.size, maxBytes);
    const buffer = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const { bytesRead } = await handle.read(buffer, read, length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { bytes: buffer.subarray(0, read), totalBytes: stats.size };
  } catch (error) {
    return { problem: messageOf(error) };
  } finally {
    await handle.close();
  }
}

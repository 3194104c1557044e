import { isUtf8 } from "node:buffer";
import { deflateSync } from "node:zlib";
import { type GitTarget, runGitBytes } from "./git/run-git.js";

/** Git's base85 alphabet (base85.c). */
const BASE85_DIGITS =
  "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/** Deflated bytes per base85 line, as git writes them. */
const BYTES_PER_LINE = 52;

const FILE_DIFF_START = Buffer.from("\ndiff --git ");

/**
 * Turns git's patch bytes into a string without losing bytes. Text diffs of files that are not
 * UTF-8 (e.g. Latin-1 sources, which git diffs as text) are rewritten as git binary patches, which
 * are plain ASCII and apply the same way. File names come C-quoted (`core.quotepath`): ASCII too.
 */
export async function decodePatch(
  target: GitTarget,
  patch: Uint8Array,
  holdsSecret?: (bytes: Uint8Array) => boolean,
): Promise<string> {
  const bytes = Buffer.from(patch);
  const isBinary = (part: Buffer) => !isUtf8(part) || part.includes(BINARY_PATCH);
  if (isUtf8(bytes) && (holdsSecret === undefined || !bytes.includes(BINARY_PATCH))) {
    return bytes.toString("utf8");
  }
  const parts = await Promise.all(
    splitFileDiffs(bytes).map(async (part) => {
      if (!isBinary(part)) return part.toString("utf8");
      if (holdsSecret !== undefined && (await blobsOf(target, part)).some(holdsSecret)) {
        return leftOut(part);
      }
      return isUtf8(part) ? part.toString("utf8") : rewriteAsBinary(target, part);
    }),
  );
  return parts.join("");
}

const BINARY_PATCH = Buffer.from("\nGIT binary patch\n");

/**
 * A binary change whose bytes hold a secret cannot be redacted (its content is compressed and
 * base85-encoded): it is left out, with a line saying so, which `git apply` skips as it skips any
 * line outside a file's diff.
 */
function leftOut(fileDiff: Buffer): string {
  const header = fileDiff.subarray(0, fileDiff.indexOf("\n")).toString("utf8");
  return `# agent-run: left out, as its content holds a secret: ${header}\n`;
}

/** The content before and after, from the `index` line's full ids. */
async function blobsOf(target: GitTarget, fileDiff: Buffer): Promise<Uint8Array[]> {
  const head = fileDiff.subarray(0, Math.min(fileDiff.length, 4096)).toString("latin1");
  const ids = /^index ([0-9a-f]+)\.\.([0-9a-f]+)/m.exec(head);
  if (ids?.[1] === undefined || ids[2] === undefined) return [];
  return Promise.all([readBlob(target, ids[1]), readBlob(target, ids[2])]);
}

/** Splits a patch at each `diff --git` line (hunk lines never start with "d"). */
function splitFileDiffs(patch: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let start = 0;
  let next = patch.indexOf(FILE_DIFF_START);
  while (next !== -1) {
    parts.push(patch.subarray(start, next + 1));
    start = next + 1;
    next = patch.indexOf(FILE_DIFF_START, start);
  }
  parts.push(patch.subarray(start));
  return parts;
}

/** Keeps one file's header lines (mode, index) and replaces its hunks with literal binary hunks. */
async function rewriteAsBinary(target: GitTarget, fileDiff: Buffer): Promise<string> {
  const hunksAt = fileDiff.indexOf("\n--- ");
  const header = fileDiff.subarray(0, hunksAt + 1).toString("utf8");
  const ids = /^index ([0-9a-f]+)\.\.([0-9a-f]+)/m.exec(header);
  if (hunksAt === -1 || ids?.[1] === undefined || ids[2] === undefined) {
    return fileDiff.toString("utf8");
  }
  const [before, after] = await Promise.all([readBlob(target, ids[1]), readBlob(target, ids[2])]);
  const literal = (data: Uint8Array) => encodeLiteral(deflateSync(data), data.length);
  return `${header}GIT binary patch\n${literal(after)}${literal(before)}`;
}

async function readBlob(target: GitTarget, id: string): Promise<Uint8Array> {
  if (/^0+$/.test(id)) return new Uint8Array();
  return runGitBytes(target, ["cat-file", "blob", id]);
}

/** One "literal" section of a git binary patch: the size, then the zlib data in base85 lines. */
function encodeLiteral(deflated: Uint8Array, length: number): string {
  let lines = `literal ${length}\n`;
  for (let offset = 0; offset < deflated.length; offset += BYTES_PER_LINE) {
    const chunk = deflated.subarray(offset, offset + BYTES_PER_LINE);
    const size = chunk.length <= 26 ? 64 + chunk.length : 96 + chunk.length - 26;
    lines += `${String.fromCharCode(size)}${encodeBase85(chunk)}\n`;
  }
  return `${lines}\n`;
}

/** Git's encode_85: each 4-byte group (zero-padded) as a big-endian number in 5 digits. */
function encodeBase85(bytes: Uint8Array): string {
  let out = "";
  for (let offset = 0; offset < bytes.length; offset += 4) {
    let value = 0;
    for (let i = 0; i < 4; i++) value = value * 256 + (bytes[offset + i] ?? 0);
    let group = "";
    for (let i = 0; i < 5; i++) {
      group = (BASE85_DIGITS[value % 85] ?? "") + group;
      value = Math.floor(value / 85);
    }
    out += group;
  }
  return out;
}

import { createHash } from "node:crypto";
import type { Stats } from "node:fs";

/**
 * What a folder's files looked like when a copy walked it, as one hash: each file's and symlink's
 * path, mode, size, inode, modification and change times, and a symlink's target. Two equal
 * fingerprints of the same folder mean nothing in it was written, created, removed or renamed in
 * between: a write moves the change time, which no program can set back. The exception, a change
 * within the timestamps' granularity of the first walk, is what `isSettled` rules out.
 */
export type SourceFingerprint = {
  hash: string;
  files: number;
  bytes: number;
  /** The newest change or modification time of an entry (epoch ms). */
  newestChangeMs: number;
  /** When the walk started (epoch ms). */
  walkedAtMs: number;
};

/** Collects a fingerprint entry by entry, in the walk's order. */
export type FingerprintBuilder = {
  add(relativePath: string, info: Stats, linkTarget?: string): void;
  finish(): SourceFingerprint;
};

/** Entries changed this close to the walk may have changed again unseen (same timestamps). */
const SETTLE_MS = 1000;

export function createFingerprintBuilder(walkedAtMs = Date.now()): FingerprintBuilder {
  const hash = createHash("sha1");
  let files = 0;
  let bytes = 0;
  let newestChangeMs = 0;
  return {
    add(relativePath, info, linkTarget) {
      const times = `${info.mtimeMs}\0${info.ctimeMs}`;
      hash.update(
        `${relativePath}\0${info.mode}\0${info.size}\0${info.ino}\0${times}\0${linkTarget ?? ""}\n`,
      );
      files += 1;
      bytes += info.size;
      newestChangeMs = Math.max(newestChangeMs, info.mtimeMs, info.ctimeMs);
    },
    finish: () => ({ hash: hash.digest("hex"), files, bytes, newestChangeMs, walkedAtMs }),
  };
}

/** Whether no entry changed within `SETTLE_MS` of the walk, so an equal later walk proves no change. */
export function isSettled(fingerprint: SourceFingerprint): boolean {
  return fingerprint.newestChangeMs < fingerprint.walkedAtMs - SETTLE_MS;
}

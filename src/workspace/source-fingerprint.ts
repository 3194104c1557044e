import { createHash } from "node:crypto";
import { lstatSync, type Stats } from "node:fs";
import { join } from "node:path";

/**
 * What a folder's files looked like when a copy walked it, as one hash: each file's and symlink's
 * path, mode, size, inode, modification and change times, and a symlink's target. Two equal
 * fingerprints of the same folder mean nothing in it was written, created, removed or renamed in
 * between: a write moves the change time, which programs cannot set back on the file systems
 * agent-run's workspaces live on (not so on FAT or sshfs, where it follows the modification time).
 * The exception, a change within the timestamps' granularity of the first walk, is what
 * `isSettled` rules out; a change while the copy ran, `isUnchangedSince`.
 */
export type SourceFingerprint = {
  hash: string;
  files: number;
  bytes: number;
  /** The newest change or modification time of an entry (epoch ms). */
  newestChangeMs: number;
  /** When the walk started (epoch ms). */
  walkedAtMs: number;
  /**
   * Each entry's path and the stats that a write or chmod moves, as the walk saw them; absent for
   * a walk of more than `maxKeptEntries` entries.
   */
  entries?: readonly KeptEntry[];
};

type KeptEntry = { path: string; ctimeMs: number; mtimeMs: number; size: number; ino: number };

/** Collects a fingerprint entry by entry, in the walk's order. */
export type FingerprintBuilder = {
  add(relativePath: string, info: Stats, linkTarget?: string): void;
  finish(): SourceFingerprint;
};

/** Entries changed this close to the walk may have changed again unseen (same timestamps). */
const SETTLE_MS = 1000;

/**
 * Fingerprints a copy's source as the copy walks it (`copyTree`'s `onEntry`), keeping the stats of
 * up to `maxKeptEntries` entries for `isUnchangedSince`.
 */
export function createFingerprintBuilder(
  maxKeptEntries: number,
  walkedAtMs = Date.now(),
): FingerprintBuilder {
  const hash = createHash("sha1");
  let files = 0;
  let bytes = 0;
  let newestChangeMs = 0;
  let entries: KeptEntry[] | undefined = [];
  return {
    add(relativePath, info, linkTarget) {
      const times = `${info.mtimeMs}\0${info.ctimeMs}`;
      hash.update(
        `${relativePath}\0${info.mode}\0${info.size}\0${info.ino}\0${times}\0${linkTarget ?? ""}\n`,
      );
      files += 1;
      bytes += info.size;
      newestChangeMs = Math.max(newestChangeMs, info.mtimeMs, info.ctimeMs);
      const { ctimeMs, mtimeMs, size, ino } = info;
      if (files > maxKeptEntries) entries = undefined;
      else entries?.push({ path: relativePath, ctimeMs, mtimeMs, size, ino });
    },
    finish: () => ({
      hash: hash.digest("hex"),
      files,
      bytes,
      newestChangeMs,
      walkedAtMs,
      ...(entries === undefined ? {} : { entries }),
    }),
  };
}

/**
 * Whether every entry of `root` the walk saw still has the stats it had then. The walk reads an
 * entry's stats before it copies it (on the thread pool, in a batch, a while later): a write in
 * between would give the copy other bytes than the fingerprint describes. False when the walk
 * kept no entries (too many).
 */
export function isUnchangedSince(fingerprint: SourceFingerprint, root: string): boolean {
  if (fingerprint.entries === undefined) return false;
  return fingerprint.entries.every((entry) => {
    const now = lstatSync(join(root, entry.path), { throwIfNoEntry: false });
    return (
      now !== undefined &&
      now.ctimeMs === entry.ctimeMs &&
      now.mtimeMs === entry.mtimeMs &&
      now.size === entry.size &&
      now.ino === entry.ino
    );
  });
}

/** Whether no entry changed within `SETTLE_MS` of the walk, so an equal later walk proves no change. */
export function isSettled(fingerprint: SourceFingerprint): boolean {
  return fingerprint.newestChangeMs < fingerprint.walkedAtMs - SETTLE_MS;
}

import { lstatSync, renameSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { copyTree } from "../../src/workspace/copy-tree.js";
import {
  createFingerprintBuilder,
  isSettled,
  isUnchangedSince,
  type SourceFingerprint,
} from "../../src/workspace/source-fingerprint.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

/** Copies `source` into a fresh folder of `out`, fingerprinting it as a lane's copy does. */
async function fingerprintByCopy(
  source: TmpWorkspace,
  out: TmpWorkspace,
  name: string,
  maxKeptEntries = 100,
) {
  const builder = createFingerprintBuilder(maxKeptEntries);
  const entries: string[] = [];
  await copyTree(source.root, out.path(name), {
    onEntry: (path, info, linkTarget) => {
      entries.push(linkTarget === undefined ? path : `${path} -> ${linkTarget}`);
      builder.add(path, info, linkTarget);
    },
  });
  return { fingerprint: builder.finish(), entries };
}

describe("a source fingerprint, taken by copyTree's walk", () => {
  it("hears of every file and symlink by its relative path, and nothing in .git", async () => {
    await using source = await tmpWorkspace({
      files: { "a.txt": "a\n", "dir/b.txt": "bb\n", ".git/HEAD": "ref\n" },
    });
    await using out = await tmpWorkspace();
    symlinkSync("a.txt", source.path("dir/link"));
    const { fingerprint, entries } = await fingerprintByCopy(source, out, "copy");
    expect(entries.sort()).toEqual(["a.txt", "dir/b.txt", "dir/link -> a.txt"]);
    expect(fingerprint.files).toBe(3);
    expect(fingerprint.bytes).toBe(2 + 3 + lstatSync(source.path("dir/link")).size);
  });

  it("is equal for an unchanged folder, and differs after any change, even one that keeps size and mtime", async () => {
    await using source = await tmpWorkspace({ files: { "a.txt": "a\n", "b.txt": "b\n" } });
    await using out = await tmpWorkspace();
    const first = await fingerprintByCopy(source, out, "one");
    const again = await fingerprintByCopy(source, out, "two");
    expect(again.fingerprint.hash).toBe(first.fingerprint.hash);

    const { mtime, atime } = lstatSync(source.path("a.txt"));
    writeFileSync(source.path("a.txt"), "A\n");
    utimesSync(source.path("a.txt"), atime, mtime);
    const rewritten = await fingerprintByCopy(source, out, "three");
    expect(rewritten.fingerprint.hash).not.toBe(first.fingerprint.hash);

    renameSync(source.path("b.txt"), source.path("c.txt"));
    const renamed = await fingerprintByCopy(source, out, "four");
    expect(renamed.fingerprint.hash).not.toBe(rewritten.fingerprint.hash);

    unlinkSync(source.path("c.txt"));
    const removed = await fingerprintByCopy(source, out, "five");
    expect(removed.fingerprint.hash).not.toBe(renamed.fingerprint.hash);
  });

  it("counts as settled only when nothing changed within a second of the walk", async () => {
    await using source = await tmpWorkspace({ files: { "a.txt": "a\n" } });
    await using out = await tmpWorkspace();
    const { fingerprint } = await fingerprintByCopy(source, out, "copy");
    expect(isSettled(fingerprint)).toBe(false);
    const later: SourceFingerprint = {
      ...fingerprint,
      walkedAtMs: fingerprint.newestChangeMs + 1001,
    };
    expect(isSettled(later)).toBe(true);
  });

  it("tells whether the walked entries kept their stats since (a write during the copy)", async () => {
    await using source = await tmpWorkspace({ files: { "a.txt": "a\n", "b.txt": "b\n" } });
    await using out = await tmpWorkspace();
    const { fingerprint } = await fingerprintByCopy(source, out, "copy");
    expect(isUnchangedSince(fingerprint, source.root)).toBe(true);
    writeFileSync(source.path("b.txt"), "B\n");
    expect(isUnchangedSince(fingerprint, source.root)).toBe(false);
    // A walk of more entries than it keeps can never be confirmed.
    const big = await fingerprintByCopy(source, out, "again", 1);
    expect(big.fingerprint.entries).toBeUndefined();
    expect(isUnchangedSince(big.fingerprint, source.root)).toBe(false);
  });
});

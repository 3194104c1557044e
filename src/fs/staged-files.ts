import { rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Files written one by one under temporary names, then put in place together: a command that
 * fails halfway (a bad input found at the tenth file) leaves none of them, and none is ever seen
 * half-written. Memory holds one file at a time.
 */
export type StagedFiles = {
  /** Writes `content` next to `path` under a temporary name. */
  stage(path: string, content: string): Promise<void>;
  /** Renames every staged file over its path. */
  commit(): Promise<void>;
  /** Removes every staged file (after a failure); never throws. */
  discard(): Promise<void>;
};

/** A new, empty set of staged files. */
export function stagedFiles(): StagedFiles {
  const staged: { temp: string; path: string }[] = [];
  return {
    async stage(path, content) {
      // Next to the file (a rename never crosses file systems), hidden, unique to this process.
      const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
      staged.push({ temp, path });
      await writeFile(temp, content);
    },
    async commit() {
      // One at a time, so that after a failed rename `discard` still finds the rest.
      for (let next = staged[0]; next !== undefined; next = staged[0]) {
        await rename(next.temp, next.path);
        staged.shift();
      }
    },
    async discard() {
      await Promise.all(staged.splice(0).map(({ temp }) => rm(temp, { force: true })));
    },
  };
}

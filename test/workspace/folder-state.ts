import { execFileSync } from "node:child_process";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";

/** Every file and symlink below `root` (skipping .git) as "file <mode> <base64>" or "link <target>". */
export async function readFolderState(root: string): Promise<Record<string, string>> {
  const state: Record<string, string> = {};
  const entries = await readdir(root, { recursive: true });
  for (const rel of entries.sort()) {
    if (rel.split("/").includes(".git")) continue;
    const full = join(root, rel);
    const info = await lstat(full);
    if (info.isSymbolicLink()) state[rel] = `link ${await readlink(full)}`;
    else if (info.isFile()) {
      const mode = (info.mode & 0o111) === 0 ? "644" : "755";
      state[rel] = `file ${mode} ${(await readFile(full)).toString("base64")}`;
    }
  }
  return state;
}

/** Runs git in `cwd` like a user would (with an identity for commits); returns stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.autocrlf=false", ...args],
    { cwd, stdio: "pipe", encoding: "utf8" },
  );
}

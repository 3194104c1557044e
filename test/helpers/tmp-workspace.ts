import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A real temporary folder, removed by `await using`. */
export type TmpWorkspace = AsyncDisposable & { root: string; path(rel: string): string };

/**
 * Creates a temp dir holding `files` (relative path → content). With `git: true` it is a git repo
 * with one commit of those files.
 */
export async function tmpWorkspace(
  options: { files?: Record<string, string | Uint8Array>; git?: boolean } = {},
): Promise<TmpWorkspace> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "agent-run-test-")));
  for (const [rel, content] of Object.entries(options.files ?? {})) {
    const file = join(root, rel);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  if (options.git === true) {
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
        cwd: root,
        stdio: "pipe",
      });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "--allow-empty", "-m", "init");
  }
  return {
    root,
    path: (rel) => join(root, rel),
    [Symbol.asyncDispose]: () => rm(root, { recursive: true, force: true }),
  };
}

import { execFileSync } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A `git` put first on PATH for one test; PATH comes back on dispose. */
export type FakeGit = AsyncDisposable & {
  /** The git subcommands run so far, in order (only for `loggingGit`). */
  calls(): Promise<string[]>;
};

/** A `git` that records each call's subcommand (after --git-dir, --work-tree and -c) and runs the real one. */
export function loggingGit(): Promise<FakeGit> {
  const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  return installGit(
    (dir) => `#!/bin/sh
skip=0
for arg in "$@"; do
  if [ "$skip" = 1 ]; then skip=0; continue; fi
  case "$arg" in --git-dir|--work-tree|-c) skip=1 ;; *) echo "$arg" >> '${dir}/calls'; break ;; esac
done
exec '${realGit}' "$@"
`,
  );
}

/** A `git` that says it is version `version` and fails every other call as an old git would. */
export function oldGit(version: string): Promise<FakeGit> {
  return installGit(
    () => `#!/bin/sh
if [ "$1" = "--version" ]; then echo "git version ${version}"; exit 0; fi
echo "error: unknown option \`no-such-flag'" >&2
exit 129
`,
  );
}

async function installGit(script: (dir: string) => string): Promise<FakeGit> {
  const dir = await mkdtemp(join(tmpdir(), "agent-run-fake-git-"));
  await writeFile(join(dir, "git"), script(dir));
  await chmod(join(dir, "git"), 0o755);
  const savedPath = process.env.PATH;
  process.env.PATH = `${dir}:${savedPath ?? ""}`;
  return {
    calls: async () =>
      (await readFile(join(dir, "calls"), "utf8").catch(() => "")).split("\n").filter(Boolean),
    [Symbol.asyncDispose]: async () => {
      process.env.PATH = savedPath;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** Reads a run folder's transcript as parsed lines (every line must parse). */
export async function readTranscript(runDir: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(join(runDir, "transcript.jsonl"), "utf8");
  expectEndsWithNewline(text);
  return text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Reads a run folder's summary.json. */
export async function readSummary(runDir: string): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(runDir, "summary.json"), "utf8")) as Record<
    string,
    unknown
  >;
}

function expectEndsWithNewline(text: string): void {
  if (!text.endsWith("\n")) throw new Error("transcript does not end with a newline");
}

/** Runs git in `cwd` with a fixed identity, returning stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.autocrlf=false", ...args],
    {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
}

/**
 * Copies `original` to `dest`, commits it, applies `patchFile` with `git apply`, and returns
 * `git diff --numstat` of the applied change (path → [additions, deletions]).
 */
export async function applyPatchToCopy(
  original: string,
  dest: string,
  patchFile: string,
): Promise<Map<string, [string, string]>> {
  // cp(1), not fs.cp: Node's copy loses names that are not UTF-8.
  execFileSync("cp", ["-a", original, dest]);
  execFileSync("find", [dest, "-name", ".git", "-prune", "-exec", "rm", "-rf", "{}", "+"]);
  git(dest, "init", "-q");
  git(dest, "add", "-A");
  git(dest, "commit", "-q", "--allow-empty", "-m", "original");
  git(dest, "apply", "--whitespace=nowarn", patchFile);
  git(dest, "add", "-A");
  const numstat = git(dest, "diff", "--cached", "--numstat", "--no-renames");
  const result = new Map<string, [string, string]>();
  for (const line of numstat.trim().split("\n").filter(Boolean)) {
    const [additions = "", deletions = "", path = ""] = line.split("\t");
    result.set(path, [additions, deletions]);
  }
  return result;
}

/** Lists every file under `dir` (relative, sorted) with its content, skipping .git. */
export async function treeContents(dir: string): Promise<Record<string, string>> {
  const listing = execFileSync(
    "find",
    [".", "-path", "./.git", "-prune", "-o", "-type", "f", "-print"],
    { cwd: dir, encoding: "utf8" },
  );
  const files = listing
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((file) => file.slice(2))
    .sort();
  const result: Record<string, string> = {};
  for (const file of files) result[file] = await readFile(join(dir, file), "utf8");
  return result;
}

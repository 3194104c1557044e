import { runProcess } from "../../process/run-process.js";

/** Oldest git we accept; the plumbing used here (`diff-tree -z`, `add --verbose`) is older still. */
export const MIN_GIT_VERSION: { readonly major: number; readonly minor: number } = {
  major: 2,
  minor: 25,
};

/** Answers so far, per PATH (the git that PATH finds). */
const problemsByPath = new Map<string, Promise<string | undefined>>();

/**
 * Why the git on `env.PATH` cannot be used (too old), or undefined when it is recent enough or
 * `git --version` itself fails (then the failed call's own error says more). Asked only after a
 * git call failed, so the happy path spends no process on it; a clear answer is kept for the life
 * of the process.
 */
export function findGitVersionProblem(env: Record<string, string>): Promise<string | undefined> {
  const key = env.PATH ?? "";
  let problem = problemsByPath.get(key);
  if (problem === undefined) {
    problem = readVersionProblem(env);
    problemsByPath.set(key, problem);
  }
  return problem;
}

async function readVersionProblem(env: Record<string, string>): Promise<string | undefined> {
  const { major: needMajor, minor: needMinor } = MIN_GIT_VERSION;
  const needed = `agent-run needs git ${needMajor}.${needMinor} or newer to snapshot workspaces`;
  let output: string;
  try {
    output = (await runProcess("git", ["--version"], { env, maxOutputBytes: 4096 }))
      .toString("utf8")
      .trim();
  } catch {
    // No answer (e.g. out of processes under load): ask again next time.
    problemsByPath.delete(env.PATH ?? "");
    return undefined;
  }
  const match = /(\d+)\.(\d+)/.exec(output);
  const major = Number(match?.[1] ?? 0);
  const minor = Number(match?.[2] ?? 0);
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return `${needed}; found "${output}"`;
}

import { devNull } from "node:os";
import { delimiter } from "node:path";
import { buildCommandEnv } from "../../process/command-env.js";
import { ProcessError, runProcess } from "../../process/run-process.js";
import { trustedDirs } from "../../process/trusted-dirs.js";
import { findGitVersionProblem, MIN_GIT_VERSION } from "./git-version.js";

/** Where one git call looks: our private git dir and, when set, the workspace as its work tree. */
export type GitTarget = { gitDir: string; workTree?: string };

/** Extra inputs for one git call: stdin, and settings (`name=value`) for this call only. */
type GitCallOptions = {
  input?: string | Uint8Array;
  config?: readonly string[];
  /** Exit codes besides 0 that are an answer, not a failure. */
  okExitCodes?: readonly number[];
};

/**
 * Settings that make git read the workspace's bytes as they are and ignore the user's setup:
 * no global excludes or attributes, no line-ending conversion, modes and symlinks as on disk.
 */
const PINNED_CONFIG = [
  `core.excludesFile=${devNull}`,
  `core.attributesFile=${devNull}`,
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.fileMode=true",
  "core.symlinks=true",
  "core.quotepath=off",
  "core.fsmonitor=false",
  // No hook can run: the setting points at a file, so no hook is found under it. The workspace's
  // own .git (and its hooks and config) is never the git dir.
  `core.hooksPath=${devNull}`,
  "gc.auto=0",
  // Each index write after the first stores only the entries that changed: add rewrites it.
  "core.splitIndex=true",
  // The git dir is scratch space for one run: flushing it to disk would only cost time.
  "core.fsync=none",
].flatMap((setting) => ["-c", setting]);

/** Room for a large patch: a big binary change must not be cut off. */
const MAX_OUTPUT_BYTES = 1024 * 1024 * 1024;

/** Runs git on our private git dir and returns stdout as text. Throws a plain Error with git's stderr. */
export async function runGit(
  target: GitTarget,
  args: readonly string[],
  options: GitCallOptions = {},
): Promise<string> {
  const stdout = await runGitBytes(target, args, options);
  return stdout.toString("utf8");
}

/**
 * Like `runGit`, but keeps stdout as bytes (patches may hold non-UTF-8 text). When git is missing
 * or older than we need, the error says so rather than showing git's complaint about a flag.
 */
export async function runGitBytes(
  target: GitTarget,
  args: readonly string[],
  options: GitCallOptions = {},
): Promise<Buffer> {
  const location = ["--git-dir", target.gitDir];
  if (target.workTree !== undefined) location.push("--work-tree", target.workTree);
  const env = gitEnvironment(target);
  try {
    const config = (options.config ?? []).flatMap((setting) => ["-c", setting]);
    return await runProcess("git", [...location, ...PINNED_CONFIG, ...config, ...args], {
      cwd: target.workTree ?? target.gitDir,
      env,
      maxOutputBytes: MAX_OUTPUT_BYTES,
      ...(options.input === undefined ? {} : { input: options.input }),
      ...(options.okExitCodes === undefined ? {} : { okExitCodes: options.okExitCodes }),
    });
  } catch (error) {
    throw await describeGitFailure(args, error, env);
  }
}

/**
 * The commands' allow-listed environment (no GIT_* variable that would point git elsewhere, no
 * key or token), plus switches that hide system and global config. HOME and XDG_CONFIG_HOME point
 * at the git dir so git older than 2.32 (no GIT_CONFIG_GLOBAL) finds no ~/.gitconfig either. Git,
 * its helpers and its libraries are looked up only in absolute folders outside the workspace
 * (`trustedDirs`): the runner's own `GIT_EXEC_PATH` and `LD_LIBRARY_PATH` (for a git installed
 * outside the usual places) are kept that way too.
 */
function gitEnvironment(target: GitTarget): Record<string, string> {
  const untrusted = target.workTree === undefined ? [] : [target.workTree];
  const env = buildCommandEnv(process.env, []);
  const search = (name: string) => trustedDirs(process.env[name], untrusted).join(delimiter);
  const install = {
    ...(process.env.GIT_EXEC_PATH === undefined || search("GIT_EXEC_PATH") === ""
      ? {}
      : { GIT_EXEC_PATH: search("GIT_EXEC_PATH") }),
    ...(search("LD_LIBRARY_PATH") === "" ? {} : { LD_LIBRARY_PATH: search("LD_LIBRARY_PATH") }),
  };
  return {
    ...env,
    PATH: search("PATH"),
    ...install,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: devNull,
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    HOME: target.gitDir,
    XDG_CONFIG_HOME: target.gitDir,
    LC_ALL: "C",
  };
}

async function describeGitFailure(
  args: readonly string[],
  error: unknown,
  env: Record<string, string>,
): Promise<Error> {
  const { major, minor } = MIN_GIT_VERSION;
  if (error instanceof ProcessError && error.code === "ENOENT") {
    return new Error(
      `git was not found on PATH; agent-run needs git ${major}.${minor} or newer to snapshot workspaces`,
      { cause: error },
    );
  }
  const versionProblem = await findGitVersionProblem(env);
  if (versionProblem !== undefined) return new Error(versionProblem, { cause: error });
  if (error instanceof ProcessError) {
    const stderr = error.stderr.toString("utf8").trim();
    const detail = stderr === "" ? error.message : stderr;
    return new Error(`git ${args[0] ?? ""} failed: ${detail}`, { cause: error });
  }
  return new Error(`git ${args[0] ?? ""} failed`, { cause: error });
}

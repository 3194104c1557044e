import { devNull } from "node:os";
import { ExecaError, execa } from "execa";

/** Oldest git we accept; the plumbing used here (`diff-tree -z`, `ls-files -o`) is older still. */
const MIN_GIT_VERSION: { readonly major: number; readonly minor: number } = { major: 2, minor: 25 };

/** Where one git call looks: our private git dir and, when set, the workspace as its work tree. */
export type GitTarget = { gitDir: string; workTree?: string };

/** Extra inputs for one git call. */
type GitCallOptions = { input?: string | Uint8Array };

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
  "gc.auto=0",
].flatMap((setting) => ["-c", setting]);

/** git variables kept from the parent (where git lives, tracing); every other GIT_* is dropped. */
const KEPT_GIT_VARIABLES = /^GIT_(EXEC_PATH|TRACE.*)$/;

/** Room for a large patch; execa's default (100 MB) would cut off a big binary change. */
const MAX_OUTPUT_BYTES = 1024 * 1024 * 1024;

let checkedVersion: Promise<void> | undefined;

/** Runs git on our private git dir and returns stdout as text. Throws a plain Error with git's stderr. */
export async function runGit(
  target: GitTarget,
  args: readonly string[],
  options: GitCallOptions = {},
): Promise<string> {
  const stdout = await runGitBytes(target, args, options);
  return Buffer.from(stdout).toString("utf8");
}

/** Like `runGit`, but keeps stdout as bytes (patches may hold non-UTF-8 text). */
export async function runGitBytes(
  target: GitTarget,
  args: readonly string[],
  options: GitCallOptions = {},
): Promise<Uint8Array> {
  await ensureGitVersion();
  const location = ["--git-dir", target.gitDir];
  if (target.workTree !== undefined) location.push("--work-tree", target.workTree);
  try {
    const result = await execa("git", [...location, ...PINNED_CONFIG, ...args], {
      cwd: target.workTree ?? target.gitDir,
      env: gitEnvironment(target.gitDir),
      extendEnv: false,
      encoding: "buffer",
      stripFinalNewline: false,
      maxBuffer: MAX_OUTPUT_BYTES,
      ...(options.input === undefined ? {} : { input: options.input }),
    });
    return result.stdout;
  } catch (error) {
    throw describeGitFailure(args, error);
  }
}

/** Fails once, clearly, when git is missing or too old, instead of on some obscure flag later. */
function ensureGitVersion(): Promise<void> {
  checkedVersion ??= readGitVersion().catch((error: unknown) => {
    checkedVersion = undefined;
    throw error;
  });
  return checkedVersion;
}

async function readGitVersion(): Promise<void> {
  let output: string;
  try {
    output = (await execa("git", ["--version"], { env: gitEnvironment(devNull), extendEnv: false }))
      .stdout;
  } catch (error) {
    throw describeGitFailure(["--version"], error);
  }
  const match = /(\d+)\.(\d+)/.exec(output);
  const major = Number(match?.[1] ?? 0);
  const minor = Number(match?.[2] ?? 0);
  const { major: needMajor, minor: needMinor } = MIN_GIT_VERSION;
  if (major < needMajor || (major === needMajor && minor < needMinor)) {
    throw new Error(
      `agent-run needs git ${needMajor}.${needMinor} or newer to snapshot workspaces; found "${output.trim()}"`,
    );
  }
}

/**
 * The parent's environment without variables that would point git elsewhere (GIT_DIR,
 * GIT_INDEX_FILE, GIT_CONFIG_PARAMETERS, …), plus switches that hide system and global config.
 * HOME and XDG_CONFIG_HOME point at the git dir so git older than 2.32 (no GIT_CONFIG_GLOBAL)
 * finds no ~/.gitconfig either.
 */
function gitEnvironment(gitDir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (name.startsWith("GIT_") && !KEPT_GIT_VARIABLES.test(name)) continue;
    env[name] = value;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: devNull,
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    HOME: gitDir,
    XDG_CONFIG_HOME: gitDir,
    LC_ALL: "C",
  };
}

function describeGitFailure(args: readonly string[], error: unknown): Error {
  if (error instanceof ExecaError && error.code === "ENOENT") {
    const { major, minor } = MIN_GIT_VERSION;
    return new Error(
      `git was not found on PATH; agent-run needs git ${major}.${minor} or newer to snapshot workspaces`,
      { cause: error },
    );
  }
  if (error instanceof ExecaError) {
    const stderr = Buffer.from(error.stderr ?? "")
      .toString("utf8")
      .trim();
    const detail = stderr === "" ? error.shortMessage : stderr;
    return new Error(`git ${args[0] ?? ""} failed: ${detail}`, { cause: error });
  }
  return new Error(`git ${args[0] ?? ""} failed`, { cause: error });
}

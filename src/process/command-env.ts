import { dirname } from "node:path";

/**
 * Variables the agent's commands get from the runner's environment: the basics every program
 * expects, plus toolchain locations that carry no secrets. Anything else (service URLs, tokens,
 * cloud credentials) reaches a command only when a task names it in `bash.env`. Left out on
 * purpose: variables that inject code into every process (`NODE_OPTIONS`, `LD_PRELOAD`,
 * `PYTHONPATH`, `GOFLAGS`, `BASH_ENV`) and agent sockets (`SSH_AUTH_SOCK`).
 */
const ALLOWED_NAMES: ReadonlySet<string> = new Set([
  // The basics.
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TERM",
  "TMPDIR",
  "CI",
  "NO_COLOR",
  // Toolchain locations.
  "JAVA_HOME",
  "GOPATH",
  "GOROOT",
  "GOCACHE",
  "GOMODCACHE",
  "CARGO_HOME",
  "RUSTUP_HOME",
  "RUSTUP_TOOLCHAIN",
  "NVM_DIR",
  "PYENV_ROOT",
  "VIRTUAL_ENV",
  "CONDA_PREFIX",
  "GEM_HOME",
  "GEM_PATH",
  "DOTNET_ROOT",
  "ANDROID_HOME",
  "ANDROID_SDK_ROOT",
  "GRADLE_USER_HOME",
  "XDG_CACHE_HOME",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
]);

/** Locale categories (`LC_ALL`, `LC_CTYPE`...). */
const LOCALE_NAME = /^LC_[A-Z_]+$/;

/**
 * The one environment builder: what the agent's commands, checks and agent-run's own git start
 * from. The allow-listed variables of the runner's own, minus any whose value contains one of the
 * API keys (`keys`: every provider key the batch may use, see `providerSecrets`).
 */
export function buildCommandEnv(
  env: Readonly<Record<string, string | undefined>>,
  keys: readonly string[],
): Record<string, string> {
  const secrets = keys.filter((key) => key !== "");
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !isAllowedName(name)) continue;
    if (secrets.some((key) => value.includes(key))) continue;
    result[name] = value;
  }
  return result;
}

/**
 * A task's commands and checks: the base environment, the task's own `bash.env`, and on a copy a
 * git ceiling, so that git in the copy (which has no .git of its own) never finds the repository
 * the copy sits in.
 */
export function taskCommandEnv(
  base: Readonly<Record<string, string>>,
  task: { workspace: string; isInPlace: boolean; env: Readonly<Record<string, string>> },
): Record<string, string> {
  const ceiling = task.isInPlace ? {} : { GIT_CEILING_DIRECTORIES: dirname(task.workspace) };
  return { ...base, ...ceiling, ...task.env };
}

function isAllowedName(name: string): boolean {
  return ALLOWED_NAMES.has(name) || LOCALE_NAME.test(name);
}

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
 * The environment bash commands start from: the allow-listed variables of the runner's own,
 * minus any whose value contains the API key. A task's `bash.env` is added on top by the runner.
 */
export function buildCommandEnv(
  env: Readonly<Record<string, string | undefined>>,
  apiKey: string | undefined,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !isAllowedName(name)) continue;
    if (apiKey !== undefined && apiKey !== "" && value.includes(apiKey)) continue;
    result[name] = value;
  }
  return result;
}

function isAllowedName(name: string): boolean {
  return ALLOWED_NAMES.has(name) || LOCALE_NAME.test(name);
}

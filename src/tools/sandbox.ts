import { randomInt } from "node:crypto";
import { accessSync, constants, statSync } from "node:fs";
import { basename, delimiter, isAbsolute, join } from "node:path";
import { ConfigError } from "../errors.js";
import { ulimitLine } from "./sandbox-ulimit.js";

/** How the bash tool runs commands: directly, or under bubblewrap (the workspace is all it can write). */
export type Sandbox = "none" | "bwrap";

/** What one sandboxed command may use; `sandbox:` in a task file sets them (see docs/security.md). */
export type SandboxLimits = {
  /** Size of the private `/tmp` (a tmpfs, so memory), in bytes. */
  tmpBytes: number;
  /** Size of `/dev/shm` (a tmpfs of its own), in bytes. */
  shmBytes: number;
  /** Most processes (threads count too) the command may have at once: RLIMIT_NPROC. */
  maxProcesses: number;
  /** Largest file the command may write, anywhere: RLIMIT_FSIZE. */
  maxFileBytes: number;
};

const MIB = 1024 ** 2;
const GIB = 1024 ** 3;

/**
 * The limits when a task sets none. /tmp: 1 GiB holds any compiler's or test run's temporary
 * files, while a runaway writer stops long before the machine's memory (a tmpfs lives in RAM).
 * /dev/shm: 64 MiB, Docker's default, enough for POSIX semaphores and small shared buffers.
 * Processes: 4096, because threads count (a JVM or a 64-core `cargo build` has hundreds), yet a
 * fork bomb stops at an eighth of the common `pid_max` of 32768. File size: 1 GiB, more than any
 * build artifact or log a task should write.
 */
export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = {
  tmpBytes: GIB,
  shmBytes: 64 * MIB,
  maxProcesses: 4096,
  maxFileBytes: GIB,
};

/** The program and arguments that run one shell script; `fd3` is written to its file descriptor 3. */
export type SandboxedCommand = { file: string; args: string[]; fd3?: Uint8Array };

/**
 * Who a sandboxed command runs as when agent-run is root: the kernel never applies RLIMIT_NPROC to
 * uid 0, so the command gets a uid of its own (with the two capabilities that let it write
 * root-owned files) through `setpriv`.
 */
export type SandboxUser = { setprivPath: string; uid: number };

/** Where bubblewrap is looked for first, before the command's PATH (which a task may change). */
const SYSTEM_DIRS = ["/usr/bin", "/bin", "/usr/local/bin"];

/** First uid handed to sandboxed commands of a root runner: past systemd's container range, below 2^31. */
const FIRST_SANDBOX_UID = 0x7000_0000;
const SANDBOX_UIDS = 0x100_0000;

/** A git system config that trusts every repository (the command's uid owns none) and includes the real one. */
const GIT_CONFIG_PATH = "/dev/.agent-run-gitconfig";

/** Whether agent-run runs as root (then sandboxed commands run as a uid of their own). */
export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/**
 * Finds the programs a sandbox needs, throwing a `ConfigError` that says how to install them, so a
 * run never goes on unsandboxed. `searchPath` is a PATH value searched after `systemDirs`.
 * Returns bubblewrap's absolute path (undefined for `"none"`). As root, `setpriv` is needed too.
 */
export function assertSandboxAvailable(
  sandbox: Sandbox,
  searchPath: string | undefined,
  systemDirs: readonly string[] = SYSTEM_DIRS,
  asRoot: boolean = isRoot(),
): string | undefined {
  switch (sandbox) {
    case "none":
      return undefined;
    case "bwrap": {
      const found = findProgram("bwrap", searchPath, systemDirs);
      if (found === undefined) {
        throw new ConfigError(
          'sandbox "bwrap" needs bubblewrap, which is not installed; install it ' +
            "(Debian/Ubuntu: sudo apt-get install bubblewrap) or remove sandbox: bwrap",
        );
      }
      if (asRoot) findSetpriv(searchPath, systemDirs);
      return found;
    }
    default: {
      const unknown: never = sandbox;
      throw new Error(`unknown sandbox: ${String(unknown)}`);
    }
  }
}

/**
 * The identity sandboxed commands of one tool run as, when agent-run is root; undefined otherwise.
 * The uid is new for each tool (each task, each run check), so each has a process limit of its own.
 */
export function sandboxUser(
  searchPath: string | undefined,
  asRoot: boolean = isRoot(),
): SandboxUser | undefined {
  if (!asRoot) return undefined;
  return {
    setprivPath: findSetpriv(searchPath, SYSTEM_DIRS),
    uid: FIRST_SANDBOX_UID + randomInt(SANDBOX_UIDS),
  };
}

function findSetpriv(searchPath: string | undefined, systemDirs: readonly string[]): string {
  const found = findProgram("setpriv", searchPath, systemDirs);
  if (found !== undefined) return found;
  throw new ConfigError(
    'sandbox "bwrap" run as root needs setpriv, which is not installed: the process limit ' +
      "only holds for a command that does not run as root; install util-linux " +
      "(Debian/Ubuntu: sudo apt-get install util-linux), run agent-run as another user, or remove sandbox: bwrap",
  );
}

/**
 * The bubblewrap command running `shell -c script` (with `scriptArgs` as `$1`... when given, so a
 * script `exec "$@"` runs them as an argv, never parsed by the shell) with the workspace writable and everything
 * else read-only (the `readOnlyPaths` inside the workspace too), a private /tmp of `tmpBytes`
 * (TMPDIR points at it), a /dev/shm of `shmBytes`, the rest of /dev read-only, no network, its own
 * process namespace (everything in it dies with the command), a new session (no TIOCSTI into a
 * terminal), no capabilities (a runner started as root cannot remount / read-write), and hard
 * process and file-size limits the command cannot raise. As root, `user` runs the command as a
 * uid of its own, because the kernel exempts uid 0 from the process limit.
 */
export function buildBwrapCommand(options: {
  bwrapPath: string;
  workspaceRoot: string;
  shell: string;
  script: string;
  /** The script's arguments: `$1`, `$2`... (`$0` is `agent-run`). */
  scriptArgs?: readonly string[] | undefined;
  limits?: Readonly<SandboxLimits> | undefined;
  /** Absolute paths inside the workspace bound read-only (missing ones are skipped). */
  readOnlyPaths?: readonly string[] | undefined;
  user?: SandboxUser | undefined;
  /** The command's environment (for `POSIXLY_CORRECT` and `GIT_CONFIG_SYSTEM`). */
  env?: Readonly<Record<string, string>> | undefined;
}): SandboxedCommand {
  const { bwrapPath, workspaceRoot, shell, script, user } = options;
  const limits = options.limits ?? DEFAULT_SANDBOX_LIMITS;
  const env = options.env ?? {};
  const readOnly = (options.readOnlyPaths ?? []).flatMap((path) => ["--ro-bind-try", path, path]);
  // On the script's first line, so that the shell's "line N" in messages stays the script's.
  const bounded = `${ulimitLine(limits, shell, env)}; ${script}`;
  // `$0` is "agent-run" and the arguments are "$@": never pasted into the script.
  const scriptArgs = options.scriptArgs === undefined ? [] : ["agent-run", ...options.scriptArgs];
  const run = [shell, ...shellFlags(shell), "-c", bounded, ...scriptArgs];
  const command = user === undefined ? run : [...setpriv(user), ...run];
  const args = [
    ["--ro-bind", "/", "/"],
    ["--dev", "/dev"],
    ["--size", String(limits.shmBytes), "--tmpfs", "/dev/shm"],
    user === undefined ? [] : ["--perms", "0444", "--ro-bind-data", "3", GIT_CONFIG_PATH],
    // The rest of /dev is a tmpfs as large as half the memory: nothing in it needs writing.
    ["--remount-ro", "/dev"],
    ["--proc", "/proc"],
    // Unix sockets ignore read-only mounts: /run (and /var/run, a link to it) holds the docker
    // socket (root on the host), the user's D-Bus and ssh-agent sockets. An empty /run hides them.
    ["--size", String(RUN_BYTES), "--tmpfs", "/run"],
    // Before the workspace bind: a workspace under /tmp is mounted on top of the empty /tmp.
    ["--size", String(limits.tmpBytes), "--tmpfs", "/tmp"],
    ["--bind", workspaceRoot, workspaceRoot],
    readOnly,
    ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts"],
    ["--die-with-parent", "--new-session", "--cap-drop", "ALL"],
    user === undefined ? [] : USER_CAPABILITIES.flatMap((cap) => ["--cap-add", cap]),
    ["--setenv", "TMPDIR", "/tmp"],
    user === undefined ? [] : ["--setenv", "GIT_CONFIG_SYSTEM", GIT_CONFIG_PATH],
    ["--chdir", workspaceRoot],
    ["--", ...command],
  ].flat();
  if (user === undefined) return { file: bwrapPath, args };
  return { file: bwrapPath, args, fd3: Buffer.from(gitSystemConfig(env)) };
}

/** A shell's flags: bash with a socket as stdin (node's pipes are) would run ~/.bashrc without `--norc`. */
export function shellFlags(shell: string): string[] {
  return basename(shell) === "bash" ? ["--norc"] : [];
}

/** The empty /run's size: nothing the command writes there needs more. */
const RUN_BYTES = 16 * 1024 * 1024;

/**
 * What `setpriv` needs to switch to the command's uid (set the uids and gids, the capability
 * sets), and what the command keeps: writing and `chmod`ing the workspace's root-owned files.
 */
const USER_CAPABILITIES = [
  "CAP_SETUID",
  "CAP_SETGID",
  "CAP_SETPCAP",
  "CAP_DAC_OVERRIDE",
  "CAP_FOWNER",
];

/**
 * `setpriv` as the sandbox's last step: a uid of its own and the root group, no supplementary
 * groups, only CAP_DAC_OVERRIDE and CAP_FOWNER (ambient, so every program keeps them; no
 * CAP_SETUID, so nothing gets back to uid 0), and SECBIT_NO_SETUID_FIXUP so that `access()`
 * answers as `open()` does (it would otherwise check without capabilities).
 */
function setpriv(user: SandboxUser): string[] {
  const caps = "+dac_override,+fowner";
  return [
    user.setprivPath,
    `--reuid=${user.uid}`,
    "--regid=0",
    "--clear-groups",
    "--securebits=+no_setuid_fixup,+no_setuid_fixup_locked",
    `--inh-caps=-all,${caps}`,
    `--ambient-caps=${caps}`,
    `--bounding-set=-all,${caps}`,
    "--",
  ];
}

/**
 * Git refuses repositories owned by another uid ("dubious ownership"); the workspace's are
 * root's. `safe.directory` counts only in system or global config, and the global one is the
 * user's, so the sandbox gets a system config that trusts all and includes the real one.
 */
function gitSystemConfig(env: Readonly<Record<string, string>>): string {
  const real = env.GIT_CONFIG_SYSTEM ?? "/etc/gitconfig";
  return `[safe]\n\tdirectory = *\n[include]\n\tpath = ${JSON.stringify(real)}\n`;
}

function findProgram(
  name: string,
  searchPath: string | undefined,
  systemDirs: readonly string[],
): string | undefined {
  for (const dir of [...systemDirs, ...(searchPath ?? "").split(delimiter)]) {
    // Relative PATH entries (`.`, empty) would find a program planted in the workspace.
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here (or not executable): try the next folder.
    }
  }
  return undefined;
}

import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { ConfigError } from "../errors.js";

/** How the bash tool runs commands: directly, or under bubblewrap (the workspace is all it can write). */
export type Sandbox = "none" | "bwrap";

/** The program and arguments that run one shell script. */
export type SandboxedCommand = { file: string; args: string[] };

/** Where bubblewrap is looked for first, before the command's PATH (which a task may change). */
const SYSTEM_DIRS = ["/usr/bin", "/bin", "/usr/local/bin"];

/**
 * Finds the program a sandbox needs, throwing a `ConfigError` that says how to install it, so a
 * run never goes on unsandboxed. `searchPath` is a PATH value searched after `systemDirs`.
 * Returns the program's absolute path (undefined for `"none"`).
 */
export function assertSandboxAvailable(
  sandbox: Sandbox,
  searchPath: string | undefined,
  systemDirs: readonly string[] = SYSTEM_DIRS,
): string | undefined {
  switch (sandbox) {
    case "none":
      return undefined;
    case "bwrap": {
      const found = findExecutable("bwrap", [
        ...systemDirs,
        ...(searchPath ?? "").split(delimiter),
      ]);
      if (found !== undefined) return found;
      throw new ConfigError(
        'sandbox "bwrap" needs bubblewrap, which is not installed; install it ' +
          "(Debian/Ubuntu: sudo apt-get install bubblewrap) or remove sandbox: bwrap",
      );
    }
    default: {
      const unknown: never = sandbox;
      throw new Error(`unknown sandbox: ${String(unknown)}`);
    }
  }
}

/**
 * The bubblewrap command running `shell -c script` with the workspace writable and everything
 * else read-only, an empty private /tmp (TMPDIR points at it), no network, its own process
 * namespace (everything in it dies with the command), a new session (no TIOCSTI into a terminal)
 * and no capabilities (a runner started as root cannot remount / read-write).
 */
export function buildBwrapCommand(options: {
  bwrapPath: string;
  workspaceRoot: string;
  shell: string;
  script: string;
}): SandboxedCommand {
  const { bwrapPath, workspaceRoot, shell, script } = options;
  return {
    file: bwrapPath,
    args: [
      ["--ro-bind", "/", "/"],
      ["--dev", "/dev"],
      ["--proc", "/proc"],
      // Before the workspace bind: a workspace under /tmp is mounted on top of the empty /tmp.
      ["--tmpfs", "/tmp"],
      ["--bind", workspaceRoot, workspaceRoot],
      ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts"],
      ["--die-with-parent", "--new-session", "--cap-drop", "ALL"],
      ["--setenv", "TMPDIR", "/tmp"],
      ["--chdir", workspaceRoot],
      ["--", shell, "-c", script],
    ].flat(),
  };
}

function findExecutable(name: string, dirs: readonly string[]): string | undefined {
  for (const dir of dirs) {
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

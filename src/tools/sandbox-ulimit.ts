import { readFileSync } from "node:fs";
import { basename } from "node:path";

/**
 * The shell line that sets the hard (and soft) limits before the script runs, each at most the
 * hard limit agent-run itself has (raising one would fail). bash counts file sizes in KiB, in
 * POSIX mode and other shells in 512-byte blocks. A shell without `ulimit -u` (dash) fails the
 * command, so it never runs unbounded.
 */
export function ulimitLine(
  limits: { readonly maxProcesses: number; readonly maxFileBytes: number },
  shell: string,
  env: Readonly<Record<string, string>>,
): string {
  const own = ownHardLimits();
  const blockBytes = basename(shell) === "bash" && env.POSIXLY_CORRECT === undefined ? 1024 : 512;
  const processes = Math.min(limits.maxProcesses, own.processes);
  const blocks = Math.max(1, Math.floor(Math.min(limits.maxFileBytes, own.fileBytes) / blockBytes));
  return `ulimit -u ${processes} -f ${blocks} || exit 126`;
}

let ownLimits: { processes: number; fileBytes: number } | undefined;

/** agent-run's own hard limits (Linux's /proc/self/limits), which a command inherits; read once. */
function ownHardLimits(): { processes: number; fileBytes: number } {
  ownLimits ??= readOwnHardLimits();
  return ownLimits;
}

function readOwnHardLimits(): { processes: number; fileBytes: number } {
  let text = "";
  try {
    text = readFileSync("/proc/self/limits", "utf8");
  } catch {
    // Not Linux: bubblewrap does not run there anyway.
  }
  const hard = (name: string) => {
    const match = new RegExp(`^${name}\\s+\\S+\\s+(\\S+)`, "m").exec(text);
    const value = match === null ? Number.NaN : Number(match[1]);
    return Number.isFinite(value) ? value : Number.POSITIVE_INFINITY;
  };
  return { processes: hard("Max processes"), fileBytes: hard("Max file size") };
}

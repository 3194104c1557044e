import { readFile } from "node:fs/promises";

/**
 * Whether `pid` still runs. A killed process whose parent died stays a zombie until PID 1 reaps
 * it, and some sandboxes' PID 1 never does, so a zombie counts as gone (Linux only).
 */
export async function isRunning(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ESRCH") return false;
    throw error;
  }
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return !/^\d+ \(.*\) Z /.test(stat);
}

/** Polls for up to a second until `pid` is gone. */
export async function waitUntilGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    if (!(await isRunning(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

import { readdir, readFile } from "node:fs/promises";

/**
 * The pid a command wrote to `path` (`echo $$ > pid.txt`), once it is all there: the shell creates
 * the file before it writes the number, so an early read sees an empty file (and `Number("")` is 0,
 * which `kill` takes as the caller's own process group). Polls for up to `timeoutMs`.
 */
export async function readPidFile(path: string, timeoutMs = 10_000): Promise<number> {
  let text = "";
  for (const started = Date.now(); Date.now() - started < timeoutMs; ) {
    text = await readFile(path, "utf8").catch(() => "");
    const match = /^(\d+)\n$/.exec(text);
    if (match !== null && Number(match[1]) > 0) return Number(match[1]);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${path} holds no pid after ${timeoutMs} ms (it holds ${JSON.stringify(text)})`);
}

/**
 * Whether `pid` still runs. A killed process whose parent died stays a zombie until PID 1 reaps
 * it, and some sandboxes' PID 1 never does, so a zombie counts as gone (Linux only).
 */
export async function isRunning(pid: number): Promise<boolean> {
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`not a single process's pid: ${pid}`);
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

/** Pids of running processes (zombies left out) whose command line contains `marker` (Linux only). */
export async function findProcesses(marker: string): Promise<number[]> {
  const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  const found: number[] = [];
  for (const pid of pids) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    if (cmdline.includes(marker) && !/^\d+ \(.*\) Z /.test(stat)) found.push(Number(pid));
  }
  return found;
}

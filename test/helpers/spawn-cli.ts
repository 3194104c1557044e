import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";

/** How a spawned `agent-run` ended: its exit code, or the signal that killed it. */
export type SpawnedRun = {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
};

const BIN = resolve("bin/agent-run.js");

/**
 * Runs the built `agent-run` binary (`npm run build` first; `npm test` does) as its own process,
 * so a crash (a heap exhausted, a stack overflow) shows as a signal or a code, not a failed test.
 * `onSpawn` gets the child at once (to signal it mid-run).
 */
export function spawnCli(
  args: string[],
  env: Record<string, string>,
  options: { cwd?: string; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<SpawnedRun> {
  const child = spawn(process.execPath, [BIN, ...args], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", CI: "true", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  options.onSpawn?.(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolveRun) => {
    child.on("close", (code, signal) => resolveRun({ code, signal, stdout, stderr }));
  });
}

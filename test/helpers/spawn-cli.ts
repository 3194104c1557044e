import { type ChildProcessByStdio, spawn } from "node:child_process";
import { resolve } from "node:path";
import type { Readable } from "node:stream";

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
 */
export function spawnCli(args: string[], env: Record<string, string>): Promise<SpawnedRun> {
  return startCli(args, env).done;
}

/** Like `spawnCli`, with the child at hand while it runs (to signal it). */
export function startCli(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcessByStdio<null, Readable, Readable>; done: Promise<SpawnedRun> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", CI: "true", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<SpawnedRun>((resolveRun) => {
    child.on("close", (code, signal) => resolveRun({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

import type { CliIo } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";

/** What an in-process `agent-run` run printed and returned. */
export type CliRun = { exitCode: number; stdout: string; stderr: string };

/** Runs `main(argv)` in-process (so msw sees its HTTP calls) with a controlled environment. */
export async function runCli(
  argv: string[],
  options: { env?: Record<string, string | undefined>; signal?: AbortSignal } = {},
): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env },
    writeOut: (line) => out.push(line),
    writeErr: (line) => err.push(line),
    isColor: false,
    columns: 100,
  };
  const exitCode = await main(argv, {
    io,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  return { exitCode, stdout: out.join("\n"), stderr: err.join("\n") };
}

/**
 * The three Claude example tasks in `tasks/`, for tests whose figures (tokens, costs, counts) are
 * those of these three; the folder also holds the provider examples.
 */
export const CLAUDE_EXAMPLES = [
  "tasks/add-farewell.yaml",
  "tasks/fix-failing-test.yaml",
  "tasks/rename-function.yaml",
];

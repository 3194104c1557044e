import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CliIo } from "../../src/cli/io.js";

/** A complete, valid summary.json body (as `summaryJson` writes it) for a task named `name`. */
export function summaryBody(
  name: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    schema_version: 1,
    name,
    task_file: `tasks/${name}.yaml`,
    status: "completed",
    passed: true,
    error: null,
    model: "claude-sonnet-5-5",
    steps: 3,
    usage: {
      input_tokens: 1000,
      output_tokens: 200,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 300,
    },
    total_tokens: 1500,
    cost_usd: 0.01,
    duration_ms: 2500,
    final_text: "done",
    changed_files: [
      { path: "src/a.js", status: "modified", additions: 1, deletions: 1, binary: false },
    ],
    workspace: `/runs/${name}/workspace`,
    transcript: "transcript.jsonl",
    patch: "changes.patch",
    checks: [],
    ...overrides,
  };
}

/** A failed `run` check as summary.json records it. */
export function failedCheck(name: string, message: string): Record<string, unknown> {
  return {
    name,
    kind: "run",
    passed: false,
    message,
    output: "1 failing test",
    line: 12,
    duration_ms: 40,
  };
}

/** Writes `<dir>/<name>/summary.json` (text as given, or the body as JSON); returns the task folder. */
export async function writeRun(
  dir: string,
  name: string,
  body: Record<string, unknown> | string = summaryBody(name),
): Promise<string> {
  const folder = join(dir, name);
  await mkdir(folder, { recursive: true });
  await writeFile(
    join(folder, "summary.json"),
    typeof body === "string" ? body : `${JSON.stringify(body, null, 2)}\n`,
  );
  return folder;
}

/** A `CliIo` that records what a command printed. */
export function recordingIo(): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    env: {},
    writeOut: (line) => out.push(line),
    writeErr: (line) => err.push(line),
    isColor: false,
    columns: 100,
    out,
    err,
  };
}

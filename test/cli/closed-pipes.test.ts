import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

// Issue 14, finding 8: a reader that goes away early (`| head -1`) or streams closed before the
// start stop agent-run's writing to them, not its batch: every transcript, summary and the report
// are complete, and the exit code is the one the batch would have had.

const BIN = resolve("bin/agent-run.js");

const REPLIES = `- content:
    - { type: tool_use, name: write_file, input: { path: out.txt, content: "hi\\n" } }
    - { type: tool_use, name: bash, input: { command: "seq 1 200" } }
- content: [{ type: text, text: done }]
`;

const TASKS = ["a", "b", "c", "d"];

async function batch(): Promise<TmpWorkspace> {
  const files: Record<string, string> = { "ws/a.txt": "a\n", "r.yaml": REPLIES };
  for (const name of TASKS) {
    // Every task passes, so the batch exits 0, and a process killed by EPIPE (exit 1) shows.
    files[`${name}.yaml`] =
      "prompt: Go.\nworkspace: ws\nreplies: r.yaml\nchecks:\n  - file_exists: out.txt\n";
  }
  return tmpWorkspace({ files });
}

/** Runs the batch through `sh -c` with its output redirected; returns agent-run's own exit code. */
function runBatch(dir: TmpWorkspace, out: string, redirect: string): number {
  const command = `node "$BIN" --offline -v -j 2 a.yaml b.yaml c.yaml d.yaml --out ${out}`;
  const result = spawnSync("sh", ["-c", `{ ${command}; echo $? > code-${out}; } ${redirect}`], {
    cwd: dir.root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", BIN },
    encoding: "utf8",
  });
  expect(result.status, result.stderr).toBe(0);
  return Number(readFileSync(dir.path(`code-${out}`), "utf8").trim());
}

/** What the batch left: each transcript's last line type, each summary's status, the report's count. */
async function outputs(dir: TmpWorkspace, out: string) {
  const tasks = await Promise.all(
    TASKS.map(async (name) => {
      const lines = (await readFile(dir.path(`${out}/${name}/transcript.jsonl`), "utf8"))
        .trim()
        .split("\n");
      const last = JSON.parse(lines.at(-1) ?? "{}") as { type?: string };
      const summary = JSON.parse(await readFile(dir.path(`${out}/${name}/summary.json`), "utf8"));
      return { name, lines: lines.length, last: last.type, passed: summary.passed };
    }),
  );
  const report = JSON.parse(await readFile(dir.path(`${out}/report.json`), "utf8"));
  return { tasks, reported: report.tasks.length };
}

describe("closed pipes", () => {
  test.each([
    ["stderr and stdout into `head -1`", "2>&1 | head -1 > /dev/null"],
    ["stderr alone into `head -1`", "2>&1 >/dev/null | head -1 > /dev/null"],
    ["stdout alone into a reader gone before the first write", "2>/dev/null | true"],
    ["stdout and stderr into a reader gone before the first write", "2>&1 | true"],
    ["stdout and stderr closed before the start", ">&- 2>&-"],
  ])("%s: the batch completes, its outputs and exit code as without", async (_, redirect) => {
    await using dir = await batch();
    const expectedCode = runBatch(dir, "plain", "> /dev/null 2>&1");
    const expected = await outputs(dir, "plain");

    const code = runBatch(dir, "piped", redirect);

    expect(expectedCode).toBe(0);
    expect(code).toBe(expectedCode);
    expect(await outputs(dir, "piped")).toEqual(expected);
    expect(expected.tasks.every((task) => task.last === "result")).toBe(true);
  });
});

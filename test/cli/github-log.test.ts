import { spawnSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { markdownText } from "../../src/report/markdown-text.js";
import { commandLines } from "../helpers/github-runner.js";
import { failedCheck, summaryBody, writeRun } from "../helpers/run-summaries.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

// Issue 14, findings 4 and 9: under GitHub Actions, text from runs (names, file names, the model's
// words, check output) printed on stdout or stderr never becomes a workflow command, and in the job
// summary it is text, never live Markdown, HTML, links or images. The real binary runs, so the
// bytes checked are the ones the runner would read.

const BIN = resolve("bin/agent-run.js");

const PWNED = "\n::error::pwned\r::add-mask::masked\r\n  ::warning::w ##[error]legacy";

function spawnCli(args: string[], dir: TmpWorkspace) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: dir.root,
    encoding: "utf8",
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_STEP_SUMMARY: dir.path("step-summary.md"),
      GITHUB_OUTPUT: dir.path("output.txt"),
    },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Our own commands, which only the GitHub reporter writes, each on one line. */
const OWN_COMMAND = /^::(group|endgroup|error|warning)( [^:]*)?::/;

describe("a GitHub log fed with hostile recorded text", () => {
  test("report over forged summaries: no line the runner reads as a command, on stdout or stderr", async () => {
    await using dir = await tmpWorkspace({ files: {} });
    await writeRun(
      dir.path("runs"),
      "forged",
      summaryBody("forged", {
        status: `::add-mask::status${PWNED}`,
        passed: false,
        error: `boom${PWNED}`,
        final_text: PWNED,
        changed_files: [
          { path: `a${PWNED}.txt`, status: "added", additions: 1, deletions: 0, binary: false },
        ],
        checks: [
          failedCheck(`check${PWNED}`, `failed${PWNED} ![i](https://e.x/p.png) <img src=x>`),
        ],
      }),
    );
    // A folder name holding the same, with a transcript and no summary: report warns about it.
    await mkdir(dir.path(`runs/b${PWNED}`));
    await writeFile(dir.path(`runs/b${PWNED}/transcript.jsonl`), "{}\n");

    const run = spawnCli(["report", "runs", "--json", "r.json", "--junit", "j.xml"], dir);

    expect(run.code).toBe(0);
    expect(run.stderr).toContain("a transcript but no summary.json");
    expect(run.stdout).toContain("forged");
    expect(commandLines(run.stdout)).toEqual([]);
    expect(commandLines(run.stderr)).toEqual([]);
    // The Markdown (workflows append it to the job summary) has no live HTML, image or link.
    expect(run.stdout).not.toMatch(/<img|!\[|(?<!\\)\]\(/);
  });

  test("report refuses a summary whose task name holds a line break: exit 2, the file named, no command printed", async () => {
    await using dir = await tmpWorkspace({ files: {} });
    await writeRun(dir.path("runs"), "forged", summaryBody(`x${PWNED}`));

    const run = spawnCli(["report", "runs"], dir);

    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${join("runs", "forged", "summary.json")}: name: "x\\n::error`);
    expect(commandLines(run.stdout + run.stderr)).toEqual([]);
  });

  test("run with a model that writes hostile file names and text: only our own commands, and a job summary of text", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": `- content:
    - { type: tool_use, name: write_file, input: { path: "b\\n::error::pwned-file.txt", content: "x\\n" } }
    - { type: tool_use, name: write_file, input: { path: "[l](https:/e.x)<img src=x>@e.x.txt", content: "x\\n" } }
    - { type: tool_use, name: bash, input: { command: "printf '\\\\n::error::from-bash\\\\n##[error]legacy\\\\n'; exit 1" } }
- content: [{ type: text, text: "Done.\\n::error::pwned-text\\r::add-mask::m\\n![i](https://e.x/p.png) <img src=x onerror=alert(1)> ##[error]legacy" }]
`,
        "t.yaml": `prompt: Go.
workspace: ws
replies: r.yaml
checks:
  - final_text_matches: "never-matches"
  - run: "printf '\\\\n::error::from-check\\\\n##[error]x\\\\n'; exit 1"
`,
      },
    });

    const run = spawnCli(["--offline", "t.yaml", "--out", "out", "--verbose"], dir);

    expect(run.code).toBe(1);
    expect(run.stderr).toContain("from-bash");
    expect(commandLines(run.stdout)).toEqual([]);
    const commands = commandLines(run.stderr);
    expect(commands.map((line) => OWN_COMMAND.exec(line)?.[1])).toEqual([
      "group",
      "endgroup",
      "error",
      "error",
    ]);
    const summary = await readFile(dir.path("step-summary.md"), "utf8");
    expect(summary).not.toMatch(/<img|<script|!\[|(?<!\\)\]\(/);
    expect(summary).not.toMatch(/[^\\]@e\.x/);
    expect(summary).toContain(`| ${markdownText("b\n::error::pwned-file.txt")} | added |`);
    expect(summary).toContain(`| ${markdownText("[l](https:/e.x)<img src=x>@e.x.txt")} | added |`);
  });
});

import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runCli } from "../helpers/run-cli.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agent-run-bad-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const CORPUS = "fixtures/bad-tasks";

/** Replies files are read once every task file is valid, so a batch with bad task files omits these. */
const REPLIES_MISTAKES = new Set(["replies-malformed.yaml"]);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("bad input: exit 2, a message naming the file and the place, nothing run or written", () => {
  test("every file of the bad-task corpus is reported, each with file:line:col", async () => {
    const files = (await readdir(CORPUS))
      .filter((file) => file.endsWith(".yaml") && !REPLIES_MISTAKES.has(file))
      .sort();
    const out = join(dir, "out");
    const run = await runCli(["--offline", `${CORPUS}/*.yaml`, "--out", out]);

    expect(files.length).toBeGreaterThanOrEqual(50);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `agent-run: ${files.length} problems in the task files; nothing was run`,
    );
    for (const file of files) {
      expect(run.stderr).toMatch(
        new RegExp(`^${escapeRegExp(`${CORPUS}/${file}`)}:\\d+:\\d+: `, "m"),
      );
    }
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });

  test.each([
    [
      "max-steps-not-a-number.yaml",
      'max-steps-not-a-number.yaml:5:14: limits.max_steps: expected a positive integer, got "ten"',
    ],
    [
      "unknown-limit-key.yaml",
      'unknown-limit-key.yaml:5:3: limits.max_step: unknown field "max_step" (did you mean "max_steps"?)',
    ],
    ["missing-prompt.yaml", "missing-prompt.yaml:2:1: prompt: required field is missing"],
    [
      "workspace-missing.yaml",
      'workspace-missing.yaml:3:12: workspace: folder "fixtures/bad-tasks/no-such-folder" does not exist',
    ],
  ])("%s, alone, gives exit 2 and its message", async (file, message) => {
    const run = await runCli(["--offline", `${CORPUS}/${file}`, "--out", join(dir, "out")]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(`${CORPUS}/${message}`);
  });

  test("one bad file stops the whole batch before any task starts", async () => {
    const out = join(dir, "out");
    const run = await runCli([
      "--offline",
      "tasks/fix-failing-test.yaml",
      `${CORPUS}/unknown-tool.yaml`,
      "--out",
      out,
    ]);

    expect(run.exitCode).toBe(2);
    expect(existsSync(out)).toBe(false);
  });

  test.each([
    [
      ["--max-steps", "ten", "tasks/fix-failing-test.yaml"],
      '--max-steps: expected a positive integer, got "ten"',
    ],
    [
      ["--timeout", "soon", "tasks/fix-failing-test.yaml"],
      '--timeout: expected a duration such as 90s, 10m or 1h, got "soon"',
    ],
    [
      ["--concurrency", "0", "tasks/fix-failing-test.yaml"],
      '--concurrency: expected a positive integer, got "0"',
    ],
    [
      ["tasks/fix-failing-test.yaml", "--bogus"],
      "unknown flag --bogus; 'agent-run run --help' lists the flags of run",
    ],
    [
      ["--ofline", "tasks/fix-failing-test.yaml"],
      "unknown flag --ofline (did you mean --offline?); 'agent-run run --help' lists the flags of run",
    ],
    [[], "no task files given; usage: agent-run <task files or globs...>"],
    [["nothing-here/*.yaml"], "nothing-here/*.yaml: matched no task files"],
    [["no-such-task.yaml"], "no-such-task.yaml:1:1: file not found"],
  ])("usage error %j", async (argv, message) => {
    const run = await runCli(["--offline", ...argv, "--out", join(dir, "out")]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(message);
    expect(existsSync(join(dir, "out"))).toBe(false);
  });

  test.each([
    ["plan", "no task files given; usage: agent-run plan <task files or globs...>"],
    ["replay", "no transcripts given; usage: agent-run replay <transcripts or globs...>"],
    ["resume", "no run folders given; usage: agent-run resume <run folders or globs...>"],
  ])("%s with nothing to work on says what it takes", async (command, message) => {
    const run = await runCli([command]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(
      `agent-run: ${message}\nRun 'agent-run ${command} --help' for its options and examples.`,
    );
  });

  test("--offline with a task that has no replies file names the task file and the fix", async () => {
    const task = join(dir, "live-only.yaml");
    await writeFile(task, `prompt: Go.\nworkspace: ${dir}\n`);
    const run = await runCli([
      "--offline",
      task,
      "--out",
      join(dir, "..", `${dir.split("/").pop()}-out`),
    ]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `${task}: task "live-only" has no \`replies\` file, so it cannot run --offline`,
    );
  });

  test("an --out inside a task's workspace is refused (the copy would nest)", async () => {
    const task = join(dir, "t.yaml");
    await writeFile(task, `prompt: Go.\nworkspace: .\nreplies: r.yaml\n`);
    await writeFile(join(dir, "r.yaml"), "- content: [{ type: text, text: done }]\n");
    const run = await runCli(["--offline", task, "--out", join(dir, "runs")]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/--out .*runs is inside the workspace of task "t"/);
  });

  test("a malformed replies file is a task-file error with its line", async () => {
    await writeFile(join(dir, "t.yaml"), `prompt: Go.\nworkspace: ws\nreplies: r.yaml\n`);
    await mkdir(join(dir, "ws"));
    await writeFile(join(dir, "r.yaml"), "- content:\n    - type: tool_use\n      input: {}\n");
    const run = await runCli(["--offline", join(dir, "t.yaml"), "--out", join(dir, "out")]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `agent-run: 1 problem in the task files; nothing was run\n${relative(process.cwd(), join(dir, "r.yaml"))}:2:7: [0].content[0].name: required field is missing; a tool_use block needs name: the tool to call, such as read_file`,
    );
  });

  test("a replies file's misspelt block type gets a did-you-mean and the block types", async () => {
    await writeFile(join(dir, "t.yaml"), `prompt: Go.\nworkspace: ws\nreplies: r.yaml\n`);
    await mkdir(join(dir, "ws"));
    await writeFile(join(dir, "r.yaml"), "- content:\n    - type: tool_us\n      name: bash\n");
    const run = await runCli(["--offline", join(dir, "t.yaml"), "--out", join(dir, "out")]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `${relative(process.cwd(), join(dir, "r.yaml"))}:2:13: [0].content[0].type: unknown value "tool_us" (did you mean "tool_use"?); expected one of text, tool_use, thinking, redacted_thinking, reasoning`,
    );
    expect(existsSync(join(dir, "out"))).toBe(false);
  });
  test("every bad replies file is reported in one run, not only the first", async () => {
    await mkdir(join(dir, "ws"));
    for (const name of ["a", "b"]) {
      await writeFile(
        join(dir, `${name}.yaml`),
        `prompt: Go.\nworkspace: ws\nreplies: ${name}-r.yaml\n`,
      );
    }
    await writeFile(join(dir, "a-r.yaml"), "- content:\n    - type: tool_us\n");
    await writeFile(join(dir, "b-r.yaml"), "- content: [\n");
    const run = await runCli([
      "--offline",
      join(dir, "a.yaml"),
      join(dir, "b.yaml"),
      "--out",
      join(dir, "out"),
    ]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("agent-run: 2 problems in the task files; nothing was run");
    expect(run.stderr).toContain(`${relative(process.cwd(), join(dir, "a-r.yaml"))}:2:`);
    expect(run.stderr).toContain(`${relative(process.cwd(), join(dir, "b-r.yaml"))}:`);
    expect(existsSync(join(dir, "out"))).toBe(false);
  });
});

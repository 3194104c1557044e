import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const REPLIES = `- content: [{ type: tool_use, name: write_file, input: { path: out.txt, content: "hi\\n" } }]
  usage: { input_tokens: 1000, output_tokens: 100 }
- content: [{ type: text, text: done }]
`;

async function batchDir() {
  return tmpWorkspace({
    files: {
      "ws/a.txt": "a\n",
      "r.yaml": REPLIES,
      "good.yaml":
        "prompt: Go.\nworkspace: ws\nreplies: r.yaml\nchecks:\n  - file_exists: out.txt\n",
      "bad.yaml":
        'prompt: Go.\nworkspace: ws\nreplies: r.yaml\nchecks:\n  - file_exists: out.txt\n  - file_contains: { path: out.txt, text: "bye" }\n    name: says bye\n',
      "short.yaml": "prompt: Go.\nworkspace: ws\nreplies: r.yaml\nlimits: { max_steps: 1 }\n",
      "summary.md": "# earlier step\n",
      "output.txt": "",
    },
  });
}

function githubEnv(dir: { path(rel: string): string }) {
  return {
    GITHUB_ACTIONS: "true",
    CI: "true",
    GITHUB_STEP_SUMMARY: dir.path("summary.md"),
    GITHUB_OUTPUT: dir.path("output.txt"),
    ANTHROPIC_API_KEY: "sk-ant-secret-value-123",
  };
}

describe("under GitHub Actions (GITHUB_ACTIONS=true)", () => {
  test.each([1, 3])("groups each task's log, balanced (concurrency %i)", async (concurrency) => {
    await using dir = await batchDir();
    const run = await runCli(
      [
        "--offline",
        "-j",
        String(concurrency),
        dir.path("good.yaml"),
        dir.path("bad.yaml"),
        dir.path("short.yaml"),
        "--out",
        dir.path("out"),
      ],
      {
        env: githubEnv(dir),
      },
    );

    const lines = run.stderr.split("\n");
    let depth = 0;
    for (const line of lines) {
      if (line.startsWith("::group::")) depth += 1;
      if (line === "::endgroup::") depth -= 1;
      expect(depth === 0 || depth === 1, `groups nest or interleave at: ${line}`).toBe(true);
      if (/^\[\d+\/\d+\] done/.test(line))
        expect(depth, `the batch's progress inside a group: ${line}`).toBe(0);
      else if (line.startsWith("["))
        expect(depth, `a task's line outside a group: ${line}`).toBe(1);
    }
    expect(depth).toBe(0);
    expect(lines.filter((line) => line.startsWith("::group::"))).toHaveLength(3);
  });

  test("with several at once, each group's title says pass or fail, checks included", async () => {
    await using dir = await batchDir();
    const run = await runCli(
      [
        "--offline",
        "-j",
        "3",
        dir.path("good.yaml"),
        dir.path("bad.yaml"),
        dir.path("short.yaml"),
        "--out",
        dir.path("out"),
      ],
      { env: githubEnv(dir) },
    );

    const titles = run.stderr.split("\n").filter((line) => line.startsWith("::group::"));
    expect(titles.sort()).toEqual([
      "::group::bad: FAILED (completed, checks 1/2)",
      "::group::good: passed (checks 1/1)",
      "::group::short: FAILED (max_steps)",
    ]);
  });

  test("annotations for the failures only, pointing at the failed check's line; a limit is a warning", async () => {
    await using dir = await batchDir();
    const run = await runCli(
      [
        "--offline",
        dir.path("good.yaml"),
        dir.path("bad.yaml"),
        dir.path("short.yaml"),
        "--out",
        dir.path("out"),
      ],
      {
        env: githubEnv(dir),
      },
    );

    expect(run.exitCode).toBe(1);
    const annotations = run.stderr
      .split("\n")
      .filter((line) => /^::(error|warning|notice)/.test(line));
    expect(annotations).toEqual([
      `::error file=${dir.path("bad.yaml").replace(/:/g, "%3A")},line=6,title=agent-run%3A bad%3A check failed::says bye: out.txt does not contain "bye"`,
      `::warning file=${dir.path("short.yaml").replace(/:/g, "%3A")},title=agent-run%3A short%3A max_steps::max_steps reached (1 of 1 steps); raise limits.max_steps or --max-steps`,
    ]);
  });

  test("past 10 errors, 9 are shown and one says how many more there are and where", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": "- content: [{ type: text, text: done }]\n",
        "many.yaml": `prompt: Go.\nworkspace: ws\nreplies: r.yaml\nchecks:\n${Array.from({ length: 12 }, (_, i) => `  - file_exists: missing-${i + 1}.txt\n`).join("")}`,
        "summary.md": "",
        "output.txt": "",
      },
    });

    const run = await runCli(["--offline", dir.path("many.yaml"), "--out", dir.path("out")], {
      env: githubEnv(dir),
    });

    const errors = run.stderr.split("\n").filter((line) => line.startsWith("::error"));
    expect(errors).toHaveLength(10);
    expect(errors[8]).toContain("missing-9.txt does not exist");
    expect(errors[9]).toBe(
      "::error title=agent-run%3A 3 more errors::3 more errors are not shown as annotations (GitHub shows 10); see the job summary",
    );
  });

  test("a job summary row per task with the changed files, and the step outputs", async () => {
    await using dir = await batchDir();
    await runCli(
      [
        "--offline",
        dir.path("good.yaml"),
        dir.path("bad.yaml"),
        dir.path("short.yaml"),
        "--out",
        dir.path("out"),
      ],
      { env: githubEnv(dir) },
    );

    const summary = await readFile(dir.path("summary.md"), "utf8");
    expect(summary.startsWith("# earlier step\n## agent-run\n")).toBe(true);
    for (const name of ["good", "bad", "short"])
      expect(summary).toMatch(new RegExp(`^\\| ${name} +\\|`, "m"));
    expect(summary).toContain("<details><summary>bad: completed, 1 changed");
    expect(summary).toContain("| out.txt | added | +1 −0 |");
    const outputs = Object.fromEntries(
      (await readFile(dir.path("output.txt"), "utf8"))
        .trim()
        .split("\n")
        .map((line) => line.split(/=(.*)/s).slice(0, 2)),
    );
    expect(outputs).toEqual({
      passed: "1",
      failed: "2",
      total: "3",
      trials: "3",
      passed_trials: "1",
      pass_at_1: "0.333333",
      flaky_tasks: "0",
      cost_usd: String((3 * (1000 * 2 + 100 * 10)) / 1e6),
      unpriced_tasks: "0",
      report: dir.path("out/report.json"),
      out: dir.path("out"),
    });
    const everything = [summary, await readFile(dir.path("output.txt"), "utf8")].join("\n");
    expect(everything).not.toContain("sk-ant-secret-value-123");
  });

  test("a chmod-only change shows as a mode change in summary.json and the job summary", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/run.sh": "#!/bin/sh\n",
        "r.yaml":
          '- content: [{ type: tool_use, name: bash, input: { command: "chmod +x run.sh" } }]\n- content: [{ type: text, text: done }]\n',
        "t.yaml": "prompt: Go.\nworkspace: ws\nreplies: r.yaml\n",
        "summary.md": "",
        "output.txt": "",
      },
    });

    const run = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("out")], {
      env: githubEnv(dir),
    });

    expect(run.exitCode).toBe(0);
    expect(
      JSON.parse(await readFile(dir.path("out/t/summary.json"), "utf8")).changed_files,
    ).toEqual([
      {
        path: "run.sh",
        status: "modified",
        additions: 0,
        deletions: 0,
        binary: false,
        mode: { before: "100644", after: "100755" },
      },
    ]);
    expect(await readFile(dir.path("summary.md"), "utf8")).toContain(
      "| run.sh | modified, mode 100644 → 100755 | +0 −0 |",
    );
  });

  test("invalid task files (exit 2): one ::error per problem at its file, line and column, values escaped", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "typo.yaml": "prompt: Go.\nworkspace: ws\nlimits:\n  max_steps: many\n",
        "hostile,x:y.yaml": 'prompt: Go.\nworkspace: ws\n"x\\n::error::pwned,a=b": 1\n',
      },
    });

    const run = await runCli(
      ["--offline", dir.path("typo.yaml"), dir.path("hostile,x:y.yaml"), "--out", dir.path("out")],
      { env: githubEnv(dir) },
    );

    expect(run.exitCode).toBe(2);
    const file = (name: string) => dir.path(name).replace(/:/g, "%3A").replace(/,/g, "%2C");
    expect(run.stderr.split("\n").filter((line) => line.startsWith("::"))).toEqual([
      `::error file=${file("hostile,x:y.yaml")},line=3,col=1,title=agent-run%3A invalid task file::x%0A::error::pwned,a=b: unknown field "x\\n::error::pwned,a=b"; expected one of name, instance_id, prompt, workspace, system, model, provider, limits, context, tools, subagents, tool_protocol, reasoning, bash, command_tools, mcp_servers, sandbox, sandbox_limits, allow_git_changes, replies, trials, checks, output_schema, output_retries`,
      `::error file=${file("typo.yaml")},line=4,col=14,title=agent-run%3A invalid task file::limits.max_steps: expected a positive integer, got "many"`,
    ]);
    expect(run.stderr).not.toMatch(/^::error::pwned/m);
  });

  test("outside GitHub Actions none of it is written", async () => {
    await using dir = await batchDir();
    await writeFile(dir.path("summary.md"), "");
    const run = await runCli(["--offline", dir.path("bad.yaml"), "--out", dir.path("out")], {
      env: { GITHUB_STEP_SUMMARY: dir.path("summary.md"), GITHUB_OUTPUT: dir.path("output.txt") },
    });

    expect(run.stderr).not.toMatch(/^::/m);
    expect(await readFile(dir.path("summary.md"), "utf8")).toBe("");
    expect(await readFile(dir.path("output.txt"), "utf8")).toBe("");
  });
});

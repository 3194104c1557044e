import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { commandLines } from "../helpers/github-runner.js";
import { spawnCli } from "../helpers/spawn-cli.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

// Under GitHub Actions, `replay` and `resume` write what `run` writes (groups, annotations, job
// summary, step outputs); annotation and JUnit paths are relative to the checkout
// ($GITHUB_WORKSPACE); control characters never reach a workflow command raw. The real binary
// runs (`npm run build` first), from a folder below the checkout, as a step with
// `working-directory` would.

const REPLIES = `- content: [{ type: tool_use, name: write_file, input: { path: out.txt, content: "hi\\n" } }]
- content: [{ type: text, text: done }]
`;

/** Stops at max_steps after one step; completed, its check (line 6) fails. */
const SHORT_TASK =
  'prompt: Go.\nworkspace: ws\nreplies: r.yaml\nlimits: { max_steps: 1 }\nchecks:\n  - file_contains: { path: out.txt, text: "bye" }\n    name: says bye\n';

async function checkout() {
  return tmpWorkspace({
    files: {
      "ws/a.txt": "a\n",
      "r.yaml": REPLIES,
      "short.yaml": SHORT_TASK,
      "sub/.keep": "",
      "summary.md": "",
      "output.txt": "",
    },
  });
}

function githubEnv(dir: TmpWorkspace): Record<string, string> {
  return {
    GITHUB_ACTIONS: "true",
    GITHUB_WORKSPACE: dir.root,
    GITHUB_STEP_SUMMARY: dir.path("summary.md"),
    GITHUB_OUTPUT: dir.path("output.txt"),
  };
}

/** Runs `short.yaml` as `../short.yaml` from `sub/`, outside GitHub Actions, into `sub/out`. */
async function recordShortRun(dir: TmpWorkspace): Promise<void> {
  const run = await spawnCli(
    ["--offline", "../short.yaml", "--out", "out"],
    {},
    {
      cwd: dir.path("sub"),
    },
  );
  expect(run.code, run.stderr).toBe(1);
}

async function stepOutputs(dir: TmpWorkspace): Promise<Record<string, string>> {
  const text = await readFile(dir.path("output.txt"), "utf8");
  return Object.fromEntries(
    text
      .trim()
      .split("\n")
      .map((line) => line.split(/=(.*)/s).slice(0, 2)),
  );
}

describe("replay and resume under GitHub Actions", () => {
  test("replay: a group per task, annotations, job summary and step outputs, as run writes them", async () => {
    await using dir = await checkout();
    await recordShortRun(dir);

    const run = await spawnCli(["replay", "out", "--out", "again"], githubEnv(dir), {
      cwd: dir.path("sub"),
    });

    expect(run.code, run.stderr).toBe(1);
    expect(commandLines(run.stderr)).toEqual([
      "::group::short",
      "::endgroup::",
      "::warning file=short.yaml,title=agent-run%3A short%3A max_steps::max_steps reached (1 of 1 steps); raise limits.max_steps or --max-steps",
      '::error file=short.yaml,line=6,title=agent-run%3A short%3A check failed::says bye: out.txt does not contain "bye"',
    ]);
    expect(await readFile(dir.path("summary.md"), "utf8")).toMatch(
      /^## agent-run\n[\s\S]*^\| short +\|/m,
    );
    expect(await stepOutputs(dir)).toMatchObject({
      passed: "0",
      failed: "1",
      total: "1",
      out: dir.path("sub/again"),
      report: dir.path("sub/again/report.json"),
    });
  });

  test("resume OUT --offline: the same, the failed check annotated at its line", async () => {
    await using dir = await checkout();
    await recordShortRun(dir);

    const run = await spawnCli(
      ["resume", "out/short", "--max-steps", "5", "--offline"],
      githubEnv(dir),
      { cwd: dir.path("sub") },
    );

    expect(run.code, run.stderr).toBe(1);
    expect(commandLines(run.stderr)).toEqual([
      "::group::short",
      "::endgroup::",
      '::error file=short.yaml,line=6,title=agent-run%3A short%3A check failed::says bye: out.txt does not contain "bye"',
    ]);
    expect(await readFile(dir.path("summary.md"), "utf8")).toContain(
      "<details><summary>short: completed, 1 changed",
    );
    expect(await stepOutputs(dir)).toMatchObject({ passed: "0", failed: "1", total: "1" });
  });

  test("annotation files: relative to GITHUB_WORKSPACE when inside it, else as given", async () => {
    await using dir = await checkout();
    await using outside = await tmpWorkspace({
      files: { "ws/a.txt": "a\n", "r.yaml": REPLIES, "far.yaml": SHORT_TASK },
    });

    const run = await spawnCli(
      ["--offline", "../short.yaml", outside.path("far.yaml"), "--out", "out"],
      githubEnv(dir),
      { cwd: dir.path("sub") },
    );

    const files = commandLines(run.stderr)
      .filter((line) => line.startsWith("::warning"))
      .map((line) => /file=([^,]*)/.exec(line)?.[1]);
    expect(files.sort()).toEqual([outside.path("far.yaml").replace(/:/g, "%3A"), "short.yaml"]);
  });

  test("JUnit classname and file: relative to GITHUB_WORKSPACE when set, else to the current folder", async () => {
    await using dir = await checkout();
    await recordShortRun(dir);
    const args = ["report", "out", "--junit", "j.xml", "--junit-file-line"];
    const testcase = async () =>
      /<testcase [^>]*>/.exec(await readFile(dir.path("sub/j.xml"), "utf8"))?.[0];

    await spawnCli(args, { GITHUB_WORKSPACE: dir.root }, { cwd: dir.path("sub") });
    const inCi = await testcase();
    await spawnCli(
      ["report", "sub/out", "--junit", "sub/j.xml", "--junit-file-line"],
      {},
      {
        cwd: dir.root,
      },
    );
    const local = await testcase();

    expect(inCi).toContain('classname="short" name="short"');
    expect(inCi).toContain('file="short.yaml" line="6"');
    // Recorded as ../short.yaml from sub/; from the checkout's root it stays as recorded.
    expect(local).toContain('classname="../short" name="short"');
  });

  test("control characters in annotation text and properties are shown as \\xNN, as the log shows them", async () => {
    await using dir = await tmpWorkspace({
      files: {
        "ws/a.txt": "a\n",
        "r.yaml": REPLIES,
        "t\u001b.yaml":
          'name: t\nprompt: Go.\nworkspace: ws\nreplies: r.yaml\nchecks:\n  - file_contains: { path: out.txt, text: "bye" }\n    name: "says \\e[31mbye\\a\\x9b"\n',
        "summary.md": "",
        "output.txt": "",
      },
    });

    const run = await spawnCli(["--offline", "t\u001b.yaml", "--out", "out"], githubEnv(dir), {
      cwd: dir.root,
    });

    const errors = commandLines(run.stderr).filter((line) => line.startsWith("::error"));
    expect(errors).toEqual([
      '::error file=t\\x1b.yaml,line=6,title=agent-run%3A t%3A check failed::says \\x1b[31mbye\\x07\\x9b: out.txt does not contain "bye"',
    ]);
    expect(run.stderr).toContain("says \\x1b[31mbye\\x07\\x9b");
    for (const raw of ["\u0007", "\u001b", "\u009b"]) expect(run.stderr).not.toContain(raw);
  });
});

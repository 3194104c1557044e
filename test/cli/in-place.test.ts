import { existsSync, readdirSync, symlinkSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { readSummary, readTranscript } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const REPLIES = `- content:
    - { type: tool_use, name: edit_file, input: { path: a.txt, old_text: old, new_text: new } }
- content: [{ type: text, text: done }]
`;

describe("--in-place and the output folder", () => {
  test("--in-place edits the original; a run folder inside the workspace is not part of the change", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "a.txt": "old\n",
        "tasks/t.yaml": "prompt: Go.\nworkspace: ..\nreplies: r.yaml\n",
        "tasks/r.yaml": REPLIES,
      },
      git: true,
    });
    const out = ws.path("agent-runs");
    const argv = ["--offline", "--in-place", ws.path("tasks/t.yaml"), "--out", out];
    const refused = await runCli(argv);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(
      /--out .* is inside the workspace of task "t" .* choose an --out outside the workspace, or pass --allow-out-in-workspace/,
    );
    expect(existsSync(out)).toBe(false);
    expect(await readFile(ws.path("a.txt"), "utf8")).toBe("old\n");

    // Through a symlink to the workspace, the same folder is refused too.
    await using elsewhere = await tmpWorkspace();
    symlinkSync(ws.root, elsewhere.path("link"));
    const viaLink = [
      "--offline",
      "--in-place",
      ws.path("tasks/t.yaml"),
      "--out",
      elsewhere.path("link/agent-runs"),
    ];
    expect((await runCli(viaLink)).exitCode).toBe(2);
    expect(existsSync(out)).toBe(false);

    const run = await runCli([...argv, "--allow-out-in-workspace"]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toMatch(/warning: --out .* is inside the workspace of task "t"/);
    expect(await readFile(ws.path("a.txt"), "utf8")).toBe("new\n");
    const summary = await readSummary(join(out, "t"));
    expect(summary.workspace).toBe(ws.root);
    expect(summary.changed_files).toEqual([
      { path: "a.txt", status: "modified", additions: 1, deletions: 1, binary: false },
    ]);
    expect(existsSync(join(out, "t", "workspace"))).toBe(false);
    expect(existsSync(join(out, "t", ".snapshot.git"))).toBe(false);
    expect(readdirSync(out).sort()).toEqual(["report.json", "t"]); // no snapshot git dirs left
    const init = (await readTranscript(join(out, "t")))[0];
    expect(init).toMatchObject({ task: { workspace: { in_place: true, path: ws.root } } });
  });

  test("a folder in --out that is not an earlier run's is never replaced (nor a file)", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "w/a.txt": "old\n",
        "t.yaml": "prompt: Go.\nworkspace: w\nreplies: r.yaml\n",
        "r.yaml": REPLIES,
      },
    });
    await mkdir(ws.path("out/t"), { recursive: true });
    await writeFile(ws.path("out/t/precious.txt"), "keep me");
    const run = await runCli(["--offline", ws.path("t.yaml"), "--out", ws.path("out")]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/out\/t exists and is not an agent-run output folder/);
    expect(await readFile(ws.path("out/t/precious.txt"), "utf8")).toBe("keep me");
  });

  test("an earlier run's folder is replaced by the new run", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "w/a.txt": "old\n",
        "t.yaml": "prompt: Go.\nworkspace: w\nreplies: r.yaml\n",
        "r.yaml": REPLIES,
      },
    });
    const argv = ["--offline", ws.path("t.yaml"), "--out", ws.path("out")];
    expect((await runCli(argv)).exitCode).toBe(0);
    await writeFile(ws.path("out/t/stale.txt"), "from before");

    expect((await runCli(argv)).exitCode).toBe(0);
    expect(existsSync(ws.path("out/t/stale.txt"))).toBe(false);
    expect(await readFile(ws.path("out/t/workspace/a.txt"), "utf8")).toBe("new\n");
  });

  test("a batch cancelled before a task starts records it as not run, at no cost; resume OUT runs it", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "w/a.txt": "old\n",
        "t.yaml": "prompt: Go.\nworkspace: w\nreplies: r.yaml\n",
        "r.yaml": REPLIES,
      },
    });
    const argv = ["--offline", ws.path("t.yaml"), "--out", ws.path("out")];
    const controller = new AbortController();
    controller.abort();
    const run = await runCli(argv, { signal: controller.signal });

    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/^\| t +\| not_run \| no +\|/m);
    expect(run.stdout).not.toMatch(/without a price/);
    expect(await readSummary(ws.path("out/t"))).toMatchObject({ status: "not_run", cost_usd: 0 });

    const resumed = await runCli(["resume", ws.path("out"), "--offline"]);
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toMatch(/^\| t +\| completed \| yes +\|/m);
    expect(await readFile(ws.path("out/t/workspace/a.txt"), "utf8")).toBe("new\n");
  });
  test("--in-place: a task that never started is recorded as not_run; resume refuses it, saying how to run it", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "w/a.txt": "old\n",
        "t.yaml": "prompt: Go.\nworkspace: w\nreplies: r.yaml\n",
        "r.yaml": REPLIES,
      },
    });
    const argv = ["--offline", "--in-place", ws.path("t.yaml"), "--out", ws.path("out")];
    const controller = new AbortController();
    controller.abort();
    const run = await runCli(argv, { signal: controller.signal });

    expect(run.exitCode).toBe(1);
    expect(await readSummary(ws.path("out/t"))).toMatchObject({ status: "not_run" });
    expect(await readFile(ws.path("w/a.txt"), "utf8")).toBe("old\n");

    const resumed = await runCli(["resume", ws.path("out"), "--offline"]);
    expect(resumed.exitCode).toBe(2);
    expect(resumed.stderr).toContain(
      `this task never started, and it works in place, while resume runs on a copy; run it again: agent-run --in-place ${ws.path("t.yaml")}`,
    );
  });
});

describe("--in-place: the output folder belongs to agent-run", () => {
  test("the file tools refuse the run and output folders, also through a link; the transcript stays intact", async () => {
    const forge = (path: string) =>
      `    - { type: tool_use, name: write_file, input: { path: "${path}", content: "forged" } }`;
    await using ws = await tmpWorkspace({
      files: {
        "a.txt": "old\n",
        "tasks/t.yaml": "prompt: Go.\nworkspace: ..\nreplies: r.yaml\n",
        "tasks/r.yaml": [
          "- content:",
          forge("agent-runs/t/transcript.jsonl"),
          forge("agent-runs/report.json"),
          forge("runs-link/t/transcript.jsonl"),
          "    - { type: tool_use, name: edit_file, input: { path: agent-runs/t/transcript.jsonl, old_text: system, new_text: forged } }",
          "    - { type: tool_use, name: read_file, input: { path: runs-link/t/transcript.jsonl } }",
          "    - { type: tool_use, name: list_files, input: { path: agent-runs } }",
          "    - { type: tool_use, name: edit_file, input: { path: a.txt, old_text: old, new_text: new } }",
          "- content: [{ type: text, text: done }]",
          "",
        ].join("\n"),
      },
      git: true,
    });
    await symlink("agent-runs", ws.path("runs-link"));
    const out = ws.path("agent-runs");
    const run = await runCli([
      "--offline",
      "--in-place",
      "--allow-out-in-workspace",
      ws.path("tasks/t.yaml"),
      "--out",
      out,
    ]);

    expect(run.exitCode).toBe(0);
    expect(await readFile(ws.path("a.txt"), "utf8")).toBe("new\n");
    const lines = await readTranscript(join(out, "t")); // every line parses: nothing forged
    expect(lines[0]).toMatchObject({ type: "system", subtype: "init" });
    expect(lines.at(-1)).toMatchObject({ type: "result", status: "completed" });
    const results = lines
      .filter((line) => line.type === "user")
      .flatMap(
        (line) =>
          (line as { message: { content: Array<Record<string, unknown>> } }).message.content,
      );
    expect(results.map((result) => result.is_error === true)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
    for (const result of results.slice(0, 6)) {
      expect(result.content).toMatch(
        /is inside "agent-runs", agent-run's own output folder \(transcripts, summaries, reports\); the file tools cannot read or change it/,
      );
    }
    expect(new Set(lines.map((line) => line.session_id)).size).toBe(1);
    expect(await readSummary(join(out, "t"))).toMatchObject({ status: "completed" });
    expect(JSON.parse(await readFile(join(out, "report.json"), "utf8"))).toMatchObject({
      tasks: expect.any(Array),
    });
  });
});

describe("--in-place batches", () => {
  test("tasks whose workspaces overlap are refused at --concurrency above 1", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "pkg/b.txt": "b\n",
        "t.yaml": "prompt: Go.\nworkspace: .\nreplies: r.yaml\n",
        "u.yaml": "prompt: Go.\nworkspace: pkg\nreplies: r.yaml\n",
        "r.yaml": REPLIES,
      },
    });
    await using out = await tmpWorkspace();
    const run = await runCli([
      "--offline",
      "--in-place",
      "-j",
      "2",
      ws.path("t.yaml"),
      ws.path("u.yaml"),
      "--out",
      out.root,
    ]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(
      /tasks "t" and "u" both work in place in overlapping folders.*--concurrency 1/,
    );
  });

  test("a file where a task folder would go is never replaced", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "w/a.txt": "old\n",
        "t.yaml": "prompt: Go.\nworkspace: w\nreplies: r.yaml\n",
        "r.yaml": REPLIES,
        "out/t": "a file",
      },
    });
    const run = await runCli(["--offline", ws.path("t.yaml"), "--out", ws.path("out")]);

    expect(run.exitCode).toBe(2);
    expect(await readFile(ws.path("out/t"), "utf8")).toBe("a file");
  });
});

describe("the agent's commands on a copy", () => {
  test("git in the copy does not find the repository the output folder sits in", async () => {
    await using repo = await tmpWorkspace({
      files: {
        "w/a.txt": "old\n",
        "t.yaml": "prompt: Go.\nworkspace: w\nreplies: r.yaml\n",
        "r.yaml": `- content:
    - { type: tool_use, name: bash, input: { command: "git rev-parse --show-toplevel" } }
- content: [{ type: text, text: done }]
`,
      },
      git: true,
    });
    const run = await runCli(["--offline", repo.path("t.yaml"), "--out", repo.path("runs")]);

    expect(run.exitCode).toBe(0);
    const result = (await readTranscript(repo.path("runs/t"))).find((line) => line.type === "user");
    expect(result).toMatchObject({ exit_code: 128 });
    expect(JSON.stringify(result)).toMatch(/not a git repository/);
  });
});

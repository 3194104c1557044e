import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { useModelServer } from "../helpers/model-server.js";
import { readSummary, readTranscript, treeContents } from "../helpers/outputs.js";
import { reply } from "../helpers/replies.js";
import { runCli } from "../helpers/run-cli.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const server = useModelServer();
const KEY = { ANTHROPIC_API_KEY: "sk-ant-test-not-a-real-key" };

/** Records a three-step run against the msw model: read, edit, check with bash, done. */
async function recordRun(root: string): Promise<string> {
  server.queue(
    reply().text("Reading.").toolUse("read_file", { path: "w/a.txt" }).usage(100, 10),
    reply()
      .toolUse("edit_file", { path: "w/a.txt", old_text: "two", new_text: "2" })
      .usage(120, 10),
    reply().toolUse("bash", { command: "cat w/a.txt w/b.txt" }).usage(130, 10),
    reply().text("Done.").usage(140, 5),
  );
  await writeFile(join(root, "task.yaml"), "prompt: Fix it.\nworkspace: ws\n");
  const run = await runCli([join(root, "task.yaml"), "--out", join(root, "runs")], { env: KEY });
  expect(run.exitCode).toBe(0);
  return join(root, "runs", "task", "transcript.jsonl");
}

describe("agent-run replay", () => {
  test("replays a recorded run with no model call: same tool results, same final workspace", async () => {
    await using dir = await tmpWorkspace({
      files: { "ws/w/a.txt": "one\ntwo\n", "ws/w/b.txt": "bee\n" },
    });
    const transcript = await recordRun(dir.root);
    const requestsBefore = server.requests.length;

    const run = await runCli(["replay", transcript, "--out", dir.path("replays")], { env: {} });

    expect(run.exitCode).toBe(0);
    expect(server.requests.length).toBe(requestsBefore);
    expect(run.stderr).toContain("[task] replay: no divergence (3 steps compared)");
    expect(await treeContents(dir.path("replays/task/workspace"))).toEqual(
      await treeContents(dir.path("runs/task/workspace")),
    );
    const init = (await readTranscript(dir.path("replays/task")))[0];
    expect(init).toMatchObject({ origin: { kind: "replay", transcript, steps: 4 } });
    expect(await readSummary(dir.path("replays/task"))).toMatchObject({
      status: "completed",
      steps: 4,
      total_tokens: 525,
    });
    expect(JSON.parse(await readFile(dir.path("replays/task/divergence.json"), "utf8"))).toEqual({
      compared_steps: 3,
      divergent_steps: [],
      first_divergence: null,
    });
  });

  test("a changed workspace is refused; allowed, the divergence is named at its step, and --strict exits 1", async () => {
    await using dir = await tmpWorkspace({
      files: { "ws/w/a.txt": "one\ntwo\n", "ws/w/b.txt": "bee\n" },
    });
    const transcript = await recordRun(dir.root);
    await writeFile(dir.path("ws/w/b.txt"), "wasp\n");

    const refused = await runCli(["replay", transcript, "--out", dir.path("replays")]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/changed since the run .*--allow-changed-workspace/);

    const allowed = await runCli([
      "replay",
      transcript,
      "--out",
      dir.path("replays"),
      "--allow-changed-workspace",
    ]);
    expect(allowed.exitCode).toBe(0);
    expect(allowed.stderr).toMatch(
      /diverged at step 3 \(bash\); 1 of 3 steps differ\nline 3:\n- recorded: "bee"\n\+ replayed: "wasp"/,
    );
    const strict = await runCli([
      "replay",
      transcript,
      "--out",
      dir.path("replays"),
      "--allow-changed-workspace",
      "--strict",
    ]);
    expect(strict.exitCode).toBe(1);
  });

  test("a run that stopped at max_steps replays to the same point with the same status", async () => {
    await using dir = await tmpWorkspace({ files: { "ws/a.txt": "x\n" } });
    for (let i = 0; i < 3; i += 1) server.queue(reply().toolUse("list_files", {}));
    await writeFile(
      dir.path("task.yaml"),
      "prompt: Go.\nworkspace: ws\nlimits: { max_steps: 2 }\n",
    );
    await runCli([dir.path("task.yaml"), "--out", dir.path("runs")], { env: KEY });

    const run = await runCli([
      "replay",
      dir.path("runs/task/transcript.jsonl"),
      "--out",
      dir.path("replays"),
    ]);

    expect(run.exitCode).toBe(1);
    expect(await readSummary(dir.path("replays/task"))).toMatchObject({
      status: "max_steps",
      steps: 2,
    });
  });

  test("--until-step K --continue forks: K recorded steps, then the live model, and records its origin", async () => {
    await using dir = await tmpWorkspace({
      files: { "ws/w/a.txt": "one\ntwo\n", "ws/w/b.txt": "bee\n" },
    });
    const transcript = await recordRun(dir.root);
    server.queue(
      reply().toolUse("write_file", { path: "w/c.txt", content: "new\n" }),
      reply().text("Forked and done."),
    );
    const before = server.requests.length;

    const run = await runCli(
      [
        "replay",
        transcript,
        "--until-step",
        "2",
        "--continue",
        "--model",
        "claude-opus-5",
        "--out",
        dir.path("forks"),
      ],
      { env: KEY },
    );

    expect(run.exitCode).toBe(0);
    expect(server.requests.length - before).toBe(2);
    const forkRequest = server.requests[before] as { model: string; messages: unknown[] };
    expect(forkRequest.model).toBe("claude-opus-5");
    expect(forkRequest.messages).toHaveLength(5);
    const summary = await readSummary(dir.path("forks/task"));
    expect(summary).toMatchObject({
      status: "completed",
      steps: 4,
      model: "claude-opus-5",
      origin: { kind: "fork", steps: 2 },
    });
    expect(await readFile(dir.path("forks/task/workspace/w/a.txt"), "utf8")).toBe("one\n2\n");
    expect(await readFile(dir.path("forks/task/workspace/w/c.txt"), "utf8")).toBe("new\n");
  });
});

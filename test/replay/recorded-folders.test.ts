import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";
import { readFolderState } from "../workspace/folder-state.js";

// Issue 14, finding 4: what a transcript records never steers where replay and resume write, and
// they replace only folders agent-run made (its .agent-run marker), not any folder holding a
// transcript.jsonl.

const REPLIES = `- content: [{ type: tool_use, name: write_file, input: { path: b.txt, content: "b\\n" } }]
- content: [{ type: text, text: done }]
`;

/** A workspace, a task, and one finished run of it in `runs/t` (stopped at max_steps: resumable). */
async function recordedRun(): Promise<TmpWorkspace> {
  const dir = await tmpWorkspace({
    files: {
      "ws/a.txt": "a\n",
      "r.yaml": REPLIES,
      "t.yaml": "prompt: Go.\nworkspace: ws\nreplies: r.yaml\nlimits: { max_steps: 1 }\n",
    },
  });
  const run = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("runs")]);
  expect(run.exitCode).toBe(1);
  return dir;
}

/** Rewrites the recorded task name on the transcript's init line. */
async function forgeName(transcript: string, name: string): Promise<void> {
  const [init = "", ...rest] = (await readFile(transcript, "utf8")).split("\n");
  const line = JSON.parse(init) as { task: { name: string } };
  line.task.name = name;
  await writeFile(transcript, [JSON.stringify(line), ...rest].join("\n"));
}

/** A folder outside every output folder, shaped like a run's (a transcript.jsonl in it). */
async function sentinel(path: string): Promise<Record<string, string>> {
  await mkdir(path, { recursive: true });
  await writeFile(`${path}/transcript.jsonl`, "{}\n");
  await writeFile(`${path}/precious.txt`, "keep me\n");
  return readFolderState(path);
}

describe("recorded names and run folders (replay, resume)", () => {
  test("replay of a transcript naming its task ../../../x: exit 2 at file:1, the folder outside -o survives", async () => {
    await using dir = await recordedRun();
    const transcript = dir.path("runs/t/transcript.jsonl");
    await forgeName(transcript, "../../../x");
    // -o is a/b/c/out, so the recorded name points at a/x.
    const outside = await sentinel(dir.path("a/x"));

    const run = await runCli(["replay", transcript, "-o", dir.path("a/b/c/out")]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(`${transcript}:1: task.name: "../../../x" is not a task name`);
    expect(await readFolderState(dir.path("a/x"))).toEqual(outside);
    expect(existsSync(dir.path("a/b/c/out"))).toBe(false);
  });

  test("resume of a run whose transcript names its task ../../../x: exit 2, nothing moved", async () => {
    await using dir = await recordedRun();
    const transcript = dir.path("runs/t/transcript.jsonl");
    await forgeName(transcript, "../../../x");
    const folder = await readFolderState(dir.path("runs/t"));
    const outside = await sentinel(dir.path("x"));

    const run = await runCli(["resume", dir.path("runs/t"), "--max-steps", "3", "--offline"]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(`${transcript}:1: task.name: "../../../x" is not a task name`);
    expect(await readFolderState(dir.path("runs/t"))).toEqual(folder);
    expect(await readFolderState(dir.path("x"))).toEqual(outside);
  });

  test("replay into an -o whose task folder holds a transcript.jsonl but no marker is refused, the folder untouched", async () => {
    await using dir = await recordedRun();
    const before = await sentinel(dir.path("replays/t"));

    const run = await runCli([
      "replay",
      dir.path("runs/t/transcript.jsonl"),
      "-o",
      dir.path("replays"),
    ]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("is not an agent-run output folder (it has no .agent-run marker)");
    expect(await readFolderState(dir.path("replays/t"))).toEqual(before);
  });

  test("replay into an -o whose task folder is a symlink to an earlier run elsewhere is refused", async () => {
    await using dir = await recordedRun();
    await runCli(["replay", dir.path("runs/t/transcript.jsonl"), "-o", dir.path("elsewhere")]);
    const before = await readFolderState(dir.path("elsewhere/t"));
    expect(before[".agent-run"]).toBeDefined();
    await mkdir(dir.path("replays"));
    await symlink(dir.path("elsewhere/t"), dir.path("replays/t"));

    const run = await runCli([
      "replay",
      dir.path("runs/t/transcript.jsonl"),
      "-o",
      dir.path("replays"),
    ]);

    expect(run.exitCode).toBe(2);
    expect(await readFolderState(dir.path("elsewhere/t"))).toEqual(before);
  });

  test("an earlier replay's folder (marked) is replaced by the next replay", async () => {
    await using dir = await recordedRun();
    const argv = ["replay", dir.path("runs/t/transcript.jsonl"), "-o", dir.path("replays")];
    expect((await runCli(argv)).exitCode).toBe(1);
    await writeFile(dir.path("replays/t/stale.txt"), "from before");

    expect((await runCli(argv)).exitCode).toBe(1);

    expect(existsSync(dir.path("replays/t/stale.txt"))).toBe(false);
    expect(existsSync(dir.path("replays/t/.agent-run"))).toBe(true);
    expect(existsSync(dir.path("replays/t/summary.json"))).toBe(true);
  });

  test("resume of a folder holding a run's transcript but no marker (copied by hand) is refused, nothing moved", async () => {
    await using dir = await recordedRun();
    await mkdir(dir.path("copied"));
    await writeFile(
      dir.path("copied/transcript.jsonl"),
      await readFile(dir.path("runs/t/transcript.jsonl")),
    );
    const before = await readFolderState(dir.path("copied"));

    const run = await runCli(["resume", dir.path("copied"), "--max-steps", "3", "--offline"]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `${dir.path("copied")}: not an agent-run output folder (it has no .agent-run marker)`,
    );
    expect(await readFolderState(dir.path("copied"))).toEqual(before);
  });

  test("run refuses an -o task folder that holds only a transcript.jsonl (no marker)", async () => {
    await using dir = await recordedRun();
    const before = await sentinel(dir.path("other/t"));

    const run = await runCli(["--offline", dir.path("t.yaml"), "--out", dir.path("other")]);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("other/t exists and is not an agent-run output folder");
    expect(await readFolderState(dir.path("other/t"))).toEqual(before);
  });
});

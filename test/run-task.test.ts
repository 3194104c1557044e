import { getEventListeners } from "node:events";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, test } from "vitest";
import type { ModelClient } from "../src/model/model-client.js";
import { DEFAULT_PRICES } from "../src/model/pricing.js";
import { createReplayModel } from "../src/model/replay-model.js";
import { runTask } from "../src/run-task.js";
import { loadTasks } from "../src/task/load-task.js";
import { reply } from "./helpers/replies.js";
import { tmpWorkspace } from "./helpers/tmp-workspace.js";

/** A full, synchronous garbage collection (V8's `gc()`, exposed for this test). */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  const gc: unknown = runInNewContext("gc");
  if (typeof gc !== "function") throw new Error("gc() is not available");
  gc();
}

/** Runs one task (a bash call, then a final reply, then a `run` check) as a batch would. */
async function runOneTask(
  root: string,
  model: ModelClient,
  batch: AbortSignal,
  more: {
    taskFile?: string;
    snapshotGitDir?: string;
    onSlotFree?: () => void;
    onCheck?: () => void;
  } = {},
) {
  const [task] = await loadTasks([`${root}/${more.taskFile ?? "task.yaml"}`]);
  if (task === undefined) throw new Error("no task loaded");
  return runTask({
    task,
    modelName: "claude-test",
    model,
    outDir: `${root}/out`,
    inPlace: false,
    offline: true,
    prices: DEFAULT_PRICES,
    baseEnv: { PATH: process.env.PATH ?? "" },
    signal: batch,
    ...(more.snapshotGitDir === undefined ? {} : { snapshotGitDir: more.snapshotGitDir }),
    ...(more.onSlotFree === undefined ? {} : { onSlotFree: more.onSlotFree }),
    ...(more.onCheck === undefined ? {} : { onCheck: more.onCheck }),
  });
}

const FILES = {
  "ws/a.txt": "hello\n",
  "task.yaml": [
    "name: t",
    "prompt: Read a.txt.",
    "workspace: ws",
    "tools: [bash]",
    "checks:",
    "  - run: test -f a.txt",
  ].join("\n"),
};

function scriptedModel(): ModelClient {
  return createReplayModel(
    [reply().toolUse("bash", { command: "cat a.txt" }).build(), reply().text("done").build()],
    "test replies",
  );
}

describe("runTask: what a finished task leaves to the batch", () => {
  test("no listener on the batch's signal (it outlives every task)", async () => {
    await using ws = await tmpWorkspace({ files: FILES });
    const batch = new AbortController();

    const summary = await runOneTask(ws.root, scriptedModel(), batch.signal);

    expect(summary.status).toBe("completed");
    expect(summary.passed).toBe(true);
    expect(getEventListeners(batch.signal, "abort")).toEqual([]);
  });

  test("its conversation can be garbage-collected once runTask returns", async () => {
    await using ws = await tmpWorkspace({ files: FILES });
    const batch = new AbortController();
    const inner = scriptedModel();
    let conversation: WeakRef<object> | undefined;
    const model: ModelClient = {
      complete: (request, options) => {
        conversation = new WeakRef(request.messages);
        return inner.complete(request, options);
      },
    };

    const summary = await runOneTask(ws.root, model, batch.signal);
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();

    expect(summary.status).toBe("completed");
    expect(batch.signal.aborted).toBe(false); // the batch goes on
    expect(conversation).toBeDefined();
    expect(conversation?.deref()).toBeUndefined();
  });
});

describe("runTask: when it frees its place in the batch (onSlotFree)", () => {
  test("without checks, once its agent stopped, before its changes are written", async () => {
    await using ws = await tmpWorkspace({
      files: { ...FILES, "task.yaml": FILES["task.yaml"].replace(/\nchecks:.*$/s, "") },
    });
    const model = scriptedModel();
    let replies = 0;
    const counting: ModelClient = {
      complete: async (request, options) => {
        const answer = await model.complete(request, options);
        replies += 1;
        return answer;
      },
    };
    const seen: string[] = [];
    const summary = await runOneTask(ws.root, counting, new AbortController().signal, {
      onSlotFree: () => {
        seen.push(`free after ${replies} replies`);
        seen.push(`patch ${existsSync(`${ws.root}/out/t/changes.patch`)}`);
      },
    });
    expect(summary.status).toBe("completed");
    expect(seen).toEqual(["free after 2 replies", "patch false"]);
  });

  test("with checks, once they are done", async () => {
    await using ws = await tmpWorkspace({ files: FILES });
    const order: string[] = [];
    const summary = await runOneTask(ws.root, scriptedModel(), new AbortController().signal, {
      onCheck: () => order.push("check"),
      onSlotFree: () => order.push("free"),
    });
    expect(summary.checks).toHaveLength(1);
    expect(order).toEqual(["check", "free"]);
  });
});

describe("runTask: a snapshot git dir the caller keeps (snapshotGitDir)", () => {
  /** A task that appends a line to `file` in workspace `ws`. */
  function editingTask(name: string, ws: string, file: string) {
    return [
      `name: ${name}`,
      `prompt: Add a line to ${file}.`,
      `workspace: ${ws}`,
      "tools: [bash]",
    ].join("\n");
  }
  const editingModel = (file: string) =>
    createReplayModel(
      [
        reply()
          .toolUse("bash", { command: `echo more >> ${file}` })
          .build(),
        reply().text("done").build(),
      ],
      "test replies",
    );

  test("is used one task after another: each finds only its own changes, and it stays", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "one/a.txt": "a\n",
        "one/shared.txt": "same in both\n",
        "two/b.txt": "b\n",
        "two/shared.txt": "same in both\n",
        "one.yaml": editingTask("one", "one", "a.txt"),
        "two.yaml": editingTask("two", "two", "b.txt"),
      },
    });
    const gitDir = `${ws.root}/lane-0`;
    const batch = new AbortController().signal;
    const sharedIndexes = () => readdirSync(gitDir).filter((entry) => entry.startsWith("shared"));

    const first = await runOneTask(ws.root, editingModel("a.txt"), batch, {
      taskFile: "one.yaml",
      snapshotGitDir: gitDir,
    });
    const afterFirst = sharedIndexes();
    // A git killed mid-snapshot leaves its lock; the next task must not fail on it.
    writeFileSync(`${gitDir}/index.lock`, "");
    const second = await runOneTask(ws.root, editingModel("b.txt"), batch, {
      taskFile: "two.yaml",
      snapshotGitDir: gitDir,
    });

    expect(first.status).toBe("completed");
    expect(first.changedFiles.map((file) => file.path)).toEqual(["a.txt"]);
    expect(second.status).toBe("completed");
    expect(second.changedFiles.map((file) => [file.path, file.status])).toEqual([
      ["b.txt", "modified"],
    ]);
    expect(readFileSync(`${ws.root}/out/two/changes.patch`, "utf8")).toContain("+more");
    expect(existsSync(`${ws.root}/out/two/.snapshot.git`)).toBe(false);
    expect(existsSync(`${gitDir}/HEAD`)).toBe(true);
    expect(existsSync(`${gitDir}/index.lock`)).toBe(false);
    // The first task's index went with it: split-index parts do not pile up.
    expect(afterFirst.length).toBeGreaterThan(0);
    expect(sharedIndexes().length).toBe(afterFirst.length);
    expect(sharedIndexes()).not.toEqual(afterFirst);
  });

  test("keeps its objects for the same workspace, and drops them for another", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "one/a.txt": "a\n",
        "two/b.txt": "b\n",
        "one.yaml": editingTask("one", "one", "a.txt"),
        "two.yaml": editingTask("two", "two", "b.txt"),
      },
    });
    const gitDir = `${ws.root}/lane-0`;
    const batch = new AbortController().signal;
    const packs = () => readdirSync(`${gitDir}/objects/pack`).sort();
    const run = (taskFile: string, file: string) =>
      runOneTask(ws.root, editingModel(file), batch, { taskFile, snapshotGitDir: gitDir });

    expect((await run("one.yaml", "a.txt")).status).toBe("completed");
    const firstPacks = packs();
    expect((await run("one.yaml", "a.txt")).status).toBe("completed");
    const samePacks = packs();
    expect((await run("two.yaml", "b.txt")).status).toBe("completed");

    expect(firstPacks.length).toBeGreaterThan(0);
    expect(samePacks).toEqual(expect.arrayContaining(firstPacks));
    expect(packs().some((pack) => firstPacks.includes(pack))).toBe(false);
  });

  test("without one, the task's private git dir is deleted when it ends", async () => {
    await using ws = await tmpWorkspace({ files: FILES });

    const summary = await runOneTask(ws.root, scriptedModel(), new AbortController().signal);

    expect(summary.status).toBe("completed");
    expect(readdirSync(`${ws.root}/out/t`).sort()).toEqual([
      "changes.patch",
      "summary.json",
      "transcript.jsonl",
      "workspace",
    ]);
  });
});

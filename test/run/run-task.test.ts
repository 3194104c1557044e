import { getEventListeners } from "node:events";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, test } from "vitest";
import type { ModelClient } from "../../src/model/model-client.js";
import { DEFAULT_PRICES } from "../../src/model/pricing.js";
import { createReplayModel } from "../../src/model/replay-model.js";
import { runTask } from "../../src/run/run-task.js";
import { loadTasks } from "../../src/task/load-task.js";
import { reply } from "../helpers/replies.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

/** A full, synchronous garbage collection (V8's `gc()`, exposed for this test). */
function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  const gc: unknown = runInNewContext("gc");
  if (typeof gc !== "function") throw new Error("gc() is not available");
  gc();
}

/** Runs one task (a bash call, then a final reply, then a `run` check) as a batch would. */
async function runOneTask(root: string, model: ModelClient, batch: AbortSignal) {
  const [task] = await loadTasks([`${root}/task.yaml`]);
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

describe("runTask: its snapshots", () => {
  test("live in a private folder outside the workspace and the output folder, removed when it ends", async () => {
    await using ws = await tmpWorkspace({ files: FILES });
    await using scratch = await tmpWorkspace();
    const savedTmpdir = process.env.TMPDIR;
    process.env.TMPDIR = scratch.root;
    let seen: string[] = [];
    let modes: number[] = [];
    const inner = scriptedModel();
    const model: ModelClient = {
      complete: (request, options) => {
        seen = readdirSync(scratch.root);
        modes = seen.map((name) => statSync(`${scratch.root}/${name}`).mode & 0o777);
        return inner.complete(request, options);
      },
    };
    try {
      const summary = await runOneTask(ws.root, model, new AbortController().signal);

      expect(summary.status).toBe("completed");
      expect(seen).toHaveLength(1);
      expect(modes).toEqual([0o700]);
      expect(readdirSync(scratch.root)).toEqual([]);
      expect(readdirSync(`${ws.root}/out/t`).sort()).toEqual([
        ".agent-run",
        "changes.patch",
        "summary.json",
        "transcript.jsonl",
        "workspace",
      ]);
    } finally {
      // Assigning undefined would set the string "undefined".
      if (savedTmpdir === undefined) Reflect.deleteProperty(process.env, "TMPDIR");
      else process.env.TMPDIR = savedTmpdir;
    }
  });
});

describe("runTask: its transcript belongs to agent-run", () => {
  const tamperings = [
    {
      what: "replaced",
      command:
        "mv ../transcript.jsonl ../moved.jsonl && echo '{\"forged\":true}' > ../transcript.jsonl",
      message:
        /the transcript .*\/out\/t\/transcript\.jsonl was replaced by another file during the run/,
    },
    {
      what: "truncated",
      command: ": > ../transcript.jsonl",
      message: /the transcript .*\/transcript\.jsonl was truncated \(to 0 bytes/,
    },
    {
      what: "removed",
      command: "rm ../transcript.jsonl",
      message: /the transcript .*\/transcript\.jsonl was removed/,
    },
  ];

  test.each(tamperings)(
    "a transcript $what by a command mid-run ends the run with error, naming it",
    async ({ command, message }) => {
      await using ws = await tmpWorkspace({ files: FILES });
      // In a copy, the workspace is OUT/t/workspace: the transcript is ../transcript.jsonl.
      const model = createReplayModel(
        [
          reply().toolUse("bash", { command }).build(),
          reply().toolUse("bash", { command: "echo never-run" }).build(),
          reply().text("done").build(),
        ],
        "test replies",
      );

      const summary = await runOneTask(ws.root, model, new AbortController().signal);

      expect(summary.status).toBe("error");
      expect(summary.error).toMatch(message);
      expect(summary.error).toMatch(
        /so it is not agent-run's record; agent-run stopped writing it/,
      );
      expect(summary.steps).toBe(1); // stopped at once: no second model call
      expect(summary.checks).toEqual([expect.objectContaining({ passed: true })]);
      // The run's other outputs are still written.
      expect(readdirSync(`${ws.root}/out/t`)).toEqual(
        expect.arrayContaining(["changes.patch", "summary.json"]),
      );
    },
  );

  test("the forged file is left as it is (agent-run writes nothing more into either file)", async () => {
    await using ws = await tmpWorkspace({ files: FILES });
    const [replaced] = tamperings;
    const model = createReplayModel(
      [
        reply().toolUse("bash", { command: replaced?.command }).build(),
        reply().text("done").build(),
      ],
      "test replies",
    );

    await runOneTask(ws.root, model, new AbortController().signal);

    expect(readFileSync(`${ws.root}/out/t/transcript.jsonl`, "utf8")).toBe('{"forged":true}\n');
    const moved = readFileSync(`${ws.root}/out/t/moved.jsonl`, "utf8").trimEnd().split("\n");
    expect(moved.map((line) => (JSON.parse(line) as { type: string }).type)).toEqual([
      "system",
      "assistant",
    ]);
  });
});

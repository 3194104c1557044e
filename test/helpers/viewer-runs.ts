import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { expect } from "vitest";
import { spawnCli } from "./spawn-cli.js";

/** Text a hostile model (or file name) might hold: markup, a script end, an event handler. */
export const HOSTILE_TEXT =
  '<img src=x onerror="window.__pwned=1"></script><script>window.__pwned=2</script>';

/** A file name with the same: `x<` is a folder, so the path holds `</script>`. */
export const HOSTILE_PATH = "x</script><img src=x onerror=window.__pwned=3>.js";

/** The replies of the hostile task, as YAML (JSON is YAML). */
const HOSTILE_REPLIES = [
  {
    content: [
      { type: "thinking", thinking: `Reasoning with ${HOSTILE_TEXT}` },
      { type: "text", text: `Here is ${HOSTILE_TEXT}` },
      {
        type: "tool_use",
        name: "write_file",
        input: { path: HOSTILE_PATH, content: HOSTILE_TEXT },
      },
      {
        type: "tool_use",
        name: "bash",
        input: { command: "chmod +x src/cli.js && printf '\\000\\001\\002' > data.bin" },
      },
    ],
    usage: { input_tokens: 1000, output_tokens: 50 },
  },
  {
    content: [{ type: "tool_use", name: "bash", input: { command: "seq 1 3000" } }],
    usage: { input_tokens: 1200, output_tokens: 20 },
  },
  {
    content: [{ type: "text", text: `Done. ${HOSTILE_TEXT}` }],
    usage: { input_tokens: 900, output_tokens: 10 },
  },
];

/** Folders of real offline runs, made once for the viewer's tests. */
export type ViewerRuns = {
  /** The ten example tasks. */
  batch: string;
  /** The same, with fix-failing-test stopped at 2 steps: a pass → fail flip. */
  stopped: string;
  /** One task whose model writes markup, a hostile file name, a binary file and a mode change. */
  hostile: string;
  /** add-farewell replayed after its workspace's README changed: it diverges at step 3. */
  replays: string;
  /** fix-failing-test as `with-retries`, its second call retried twice after a context trim. */
  events: string;
  /** add-farewell run twice, as trials: `trial-1` passed, `trial-2` stopped by max_steps. */
  trials: string;
};

/** Runs the built binary and fails the test when it does not end with `code`. */
async function agentRun(args: string[], code: number, cwd: string): Promise<void> {
  const run = await spawnCli(args, {}, { cwd });
  expect(run.stderr).not.toMatch(/internal error/);
  expect(run.code, `agent-run ${args.join(" ")}\n${run.stderr}`).toBe(code);
}

/** Makes every folder of `ViewerRuns` under `root` (about 10 s). */
export async function makeViewerRuns(root: string): Promise<ViewerRuns> {
  const here = resolve(".");
  const batch = join(root, "batch");
  await agentRun(["--offline", join(here, "tasks/*.yaml"), "-o", batch], 0, root);
  const stopped = join(root, "stopped");
  await cp(batch, stopped, { recursive: true });
  await agentRun(
    ["--offline", "--max-steps", "2", "-o", stopped, join(here, "tasks/fix-failing-test.yaml")],
    1,
    root,
  );

  await cp(join(here, "fixtures/workspaces/greeter"), join(root, "greeter"), { recursive: true });
  await writeFile(join(root, "hostile.replies.yaml"), JSON.stringify(HOSTILE_REPLIES));
  await writeFile(
    join(root, "hostile.yaml"),
    `name: hostile\nprompt: ${JSON.stringify(`Print ${HOSTILE_TEXT}`)}\nworkspace: greeter\nreplies: hostile.replies.yaml\nchecks:\n  - run: ${JSON.stringify(`echo '${HOSTILE_TEXT}'`)}\n    name: ${JSON.stringify(`says ${HOSTILE_TEXT}`)}\n`,
  );
  const hostile = join(root, "hostile-runs");
  await agentRun(["--offline", "-o", hostile, "hostile.yaml"], 0, root);

  const task = await readFile(join(here, "tasks/add-farewell.yaml"), "utf8");
  await writeFile(
    join(root, "add-farewell.yaml"),
    task
      .replace("../fixtures/workspaces/greeter", "greeter-to-tamper")
      .replace("../fixtures/replies/", `${join(here, "fixtures/replies")}/`),
  );
  await cp(join(here, "fixtures/workspaces/greeter"), join(root, "greeter-to-tamper"), {
    recursive: true,
  });
  const recorded = join(root, "recorded");
  await agentRun(["--offline", "-o", recorded, "add-farewell.yaml"], 0, root);
  // The edit of step 3 no longer finds its text: the replay's result differs there.
  await writeFile(
    join(root, "greeter-to-tamper/README.md"),
    "# greeter\n\nTampered after the run.\n",
  );
  const replays = join(root, "replays");
  await mkdir(replays, { recursive: true });
  await agentRun(
    [
      "replay",
      "--allow-changed-workspace",
      "-o",
      replays,
      join(recorded, "add-farewell/transcript.jsonl"),
    ],
    1,
    root,
  );
  const events = await writeEventsRun(join(batch, "fix-failing-test"), join(root, "events"));
  const trials = join(root, "trials/add-farewell");
  await cp(join(batch, "add-farewell"), join(trials, "trial-1"), { recursive: true });
  await cp(join(stopped, "fix-failing-test"), join(trials, "trial-2"), { recursive: true });
  // What `--trials 2` writes: each summary names its trial (the second ran another task's replies).
  for (const index of [1, 2]) {
    const file = join(trials, `trial-${index}/summary.json`);
    const summary = JSON.parse(await readFile(file, "utf8"));
    const trial = { index, count: 2 };
    await writeFile(file, JSON.stringify({ ...summary, name: "add-farewell", trial }));
  }
  return { batch, stopped, hostile, replays, events, trials };
}

/**
 * A copy of a run named `with-retries` whose transcript has, before its second call, a context
 * trim and two retries, in the shapes the transcript reader reads (docs/transcript.md).
 */
async function writeEventsRun(template: string, out: string): Promise<string> {
  const lines = (await readFile(join(template, "transcript.jsonl"), "utf8"))
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  const common = {
    session_id: lines[0].session_id,
    uuid: "00000000-0000-4000-8000-000000000000",
    at: lines[0].at,
  };
  const retry = (attempt: number) => ({
    type: "system",
    subtype: "api_retry",
    attempt,
    max_retries: 4,
    retry_delay_ms: 500 * attempt,
    error_status: 529,
    error: "overloaded",
    error_message: "Overloaded",
    step: 2,
    ...common,
  });
  const trim = {
    type: "system",
    subtype: "compact_boundary",
    compact_metadata: { trigger: "auto", pre_tokens: 31_840, post_tokens: 20_950 },
    removed_tool_results: 3,
    context_max_tokens: 30_000,
    step: 2,
    ...common,
  };
  const second = lines.findIndex((line) => line.type === "assistant" && line.step === 2);
  lines.splice(second, 0, trim, retry(1), retry(2));
  lines[0] = { ...lines[0], task: { ...lines[0].task, name: "with-retries" } };
  const folder = join(out, "with-retries");
  await cp(template, folder, { recursive: true });
  await writeFile(
    join(folder, "transcript.jsonl"),
    `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`,
  );
  const summary = JSON.parse(await readFile(join(template, "summary.json"), "utf8"));
  await writeFile(
    join(folder, "summary.json"),
    JSON.stringify({ ...summary, name: "with-retries" }),
  );
  return out;
}

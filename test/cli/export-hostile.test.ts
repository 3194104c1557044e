import { cp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runCli } from "../helpers/run-cli.js";
import { type TmpWorkspace, tmpWorkspace } from "../helpers/tmp-workspace.js";

// `agent-run export` reads run folders as hostile input: an edited transcript or summary, a
// clash of names, a bad flag each end the command with exit 2 and a message naming the file and
// line, and nothing of the export is written (not even the healthy runs' files).

type Line = Record<string, unknown> & {
  message: { content: Record<string, unknown>[]; usage: Record<string, unknown> };
};

let dir: TmpWorkspace;
const out = () => dir.path("agent-runs");

beforeAll(async () => {
  dir = await tmpWorkspace();
  const tasks = ["tasks/fix-failing-test.yaml", "tasks/subagent-greet-french.yaml"];
  expect((await runCli(["--offline", ...tasks, "--out", out()])).exitCode).toBe(0);
}, 60_000);
afterAll(async () => {
  await dir[Symbol.asyncDispose]();
});

let copies = 0;

/** A copy of the fix-failing-test run whose transcript lines `edit` changed; its folder. */
async function editedRun(
  edit: (lines: Line[]) => void,
  name = "fix-failing-test",
): Promise<string> {
  copies += 1;
  const folder = dir.path(`copy-${copies}/${name}`);
  await cp(join(out(), "fix-failing-test"), folder, { recursive: true });
  const file = join(folder, "transcript.jsonl");
  const lines = (await readFile(file, "utf8"))
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Line);
  edit(lines);
  await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return folder;
}

/** Exports `folders` and the healthy subagent run to both formats; what it printed, and wrote. */
async function exportBoth(folders: string[], flags: string[] = []) {
  copies += 1;
  const target = dir.path(`export-${copies}`);
  const run = await runCli([
    "export",
    "--swebench",
    join(target, "preds.jsonl"),
    "--atif",
    join(target, "atif"),
    ...flags,
    join(out(), "subagent-greet-french"),
    ...folders,
  ]);
  const written = await readdir(target, { recursive: true }).catch(() => []);
  return { ...run, written: written.filter((entry) => entry !== "atif") };
}

const toolUse = (line: Line | undefined) =>
  line?.message.content.find((block) => block.type === "tool_use");

const TRANSCRIPTS: [string, (lines: Line[]) => void, RegExp][] = [
  [
    "an instance id that leaves the folder",
    (l) => {
      (l[0]?.task as Line).instance_id = "../../etc";
    },
    /transcript\.jsonl:1: task\.instance_id: expected letters/,
  ],
  [
    "a task name unlike the summary's",
    (l) => {
      (l[0]?.task as Line).name = "other";
    },
    /transcript\.jsonl:1: the transcript is of task "other"/,
  ],
  [
    "a result for a call the reply did not make",
    (l) => {
      (l[2]?.message.content[0] as Line).tool_use_id = "toolu_forged";
    },
    /transcript\.jsonl:3: a result for the call "toolu_forged"/,
  ],
  [
    "a negative token count",
    (l) => {
      if (l[1]) l[1].message.usage.input_tokens = -5;
    },
    /transcript\.jsonl:2: message\.usage\.input_tokens: /,
  ],
  [
    "a time that is no time",
    (l) => {
      if (l[1]) l[1].at = "yesterday";
    },
    /transcript\.jsonl:2: at: "yesterday" is not an ISO 8601 time/,
  ],
  [
    "a line of a subagent that never started",
    (l) => {
      if (l[1]) l[1].parent_tool_use_id = "toolu_nobody";
    },
    /transcript\.jsonl:2: parent_tool_use_id "toolu_nobody" names no subagent/,
  ],
  [
    "a tool call without an id",
    (l) => {
      delete toolUse(l[1])?.id;
    },
    /transcript\.jsonl:2: message\.content\.1\.id: /,
  ],
  [
    "a second init line",
    (l) => {
      l.splice(1, 0, structuredClone(l[0] as Line));
    },
    /transcript\.jsonl:2: a second init line/,
  ],
  [
    "a subagent of a call that is no task call",
    (l) => {
      l.splice(2, 0, {
        ...(l[1] as Line),
        type: "system",
        subtype: "task_started",
        task_id: "toolu_scripted_1_1",
        tool_use_id: "toolu_scripted_1_1",
        description: "d",
        prompt: "p",
        task_type: "local_agent",
        spawn_depth: 1,
        parent_tool_use_id: null,
        tools: [],
        max_steps: 2,
      });
    },
    /transcript\.jsonl:3: a subagent of the call "toolu_scripted_1_1", which is no task call/,
  ],
  [
    "a schema version from the future",
    (l) => {
      if (l[0]) l[0].schema_version = 99;
    },
    /transcript\.jsonl:1: schema_version 99 is newer/,
  ],
];

describe("export refuses an edited transcript: exit 2, the file and line, nothing written", () => {
  test.each(TRANSCRIPTS)("%s", async (_name, edit, message) => {
    const run = await exportBoth([await editedRun(edit)]);

    expect([run.exitCode, run.stdout, run.written]).toEqual([2, "", []]);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/and is not exported|it is not exported|newer than this agent-run/);
  });

  test("a line that is not JSON", async () => {
    const folder = await editedRun(() => {});
    const file = join(folder, "transcript.jsonl");
    const rows = (await readFile(file, "utf8")).split("\n");
    await writeFile(file, [rows[0], '{"type":', ...rows.slice(2)].join("\n"));

    const run = await exportBoth([folder]);

    expect([run.exitCode, run.written]).toEqual([2, []]);
    expect(run.stderr).toMatch(/transcript\.jsonl:2: not valid JSON/);
  });
});

describe("export refuses what would lose or clash: exit 2, nothing written", () => {
  test("two runs of one instance (a predictions file holds one per instance)", async () => {
    const copy = await editedRun((l) => {
      Object.assign(l[0]?.task as Line, { name: "fix-copy", instance_id: "fix-failing-test" });
    }, "fix-copy");
    const summary = JSON.parse(await readFile(join(copy, "summary.json"), "utf8"));
    await writeFile(join(copy, "summary.json"), JSON.stringify({ ...summary, name: "fix-copy" }));

    const run = await exportBoth([join(out(), "fix-failing-test"), copy]);

    expect([run.exitCode, run.written]).toEqual([2, []]);
    expect(run.stderr).toMatch(
      /^agent-run: instance "fix-failing-test" has 2 runs \(.*\); a predictions file holds one per instance/,
    );
  });

  test("two runs whose trajectory files differ only in case", async () => {
    const copy = await editedRun((l) => {
      (l[0]?.task as Line).name = "FIX-failing-test";
    }, "FIX-failing-test");
    const summary = JSON.parse(await readFile(join(copy, "summary.json"), "utf8"));
    await writeFile(
      join(copy, "summary.json"),
      JSON.stringify({ ...summary, name: "FIX-failing-test" }),
    );

    const run = await exportBoth([join(out(), "fix-failing-test"), copy]);

    expect([run.exitCode, run.written]).toEqual([2, []]);
    expect(run.stderr).toMatch(/would both be written to fix-failing-test\.json/);
  });

  test("a run folder without its transcript", async () => {
    const folder = await editedRun(() => {});
    await rm(join(folder, "transcript.jsonl"));

    const run = await exportBoth([folder]);

    expect([run.exitCode, run.written]).toEqual([2, []]);
    expect(run.stderr).toMatch(/cannot read the transcript .*transcript\.jsonl: no such file$/);
  });

  test("a patch that is not UTF-8", async () => {
    const folder = await editedRun(() => {});
    await writeFile(join(folder, "changes.patch"), Buffer.from([0x64, 0x69, 0xff, 0x0a]));

    const run = await exportBoth([folder]);

    expect([run.exitCode, run.written]).toEqual([2, []]);
    expect(run.stderr).toMatch(/changes\.patch: not UTF-8/);
  });

  test("a model name SWE-bench cannot make a folder of", async () => {
    const run = await exportBoth([join(out(), "fix-failing-test")], ["--model-name", ".."]);

    expect([run.exitCode, run.written]).toEqual([2, []]);
    expect(run.stderr).toMatch(/the model name "\.\." makes no folder name for SWE-bench's logs/);
  });

  test.each([
    [
      ["export", "agent-runs"],
      /nothing to write; usage: agent-run export --swebench FILE\.jsonl \| --atif DIR/,
    ],
    [
      ["export", "--swebench", "preds.json", "agent-runs"],
      /--swebench preds\.json: name the file \*\.jsonl/,
    ],
    [
      ["export", "--atif", "a", "--model-name", "m", "agent-runs"],
      /--model-name names the predictions' model; give it with --swebench FILE/,
    ],
    [["export", "--atif", "a"], /no run folders given/],
  ])("bad flags: %j", async (argv, message) => {
    const run = await runCli(argv);

    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});

import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { loadReplies } from "../../src/task/load-replies.js";
import type { ViewPage } from "../../src/view/view-data.js";
import {
  blockStartingWith,
  commandBlocks,
  comparableOutput,
  type DocSandbox,
  docSandbox,
  fencedBlocks,
  sessionCommands,
  tableAfter,
} from "../helpers/doc-claims.js";
import { EXAMPLE_TASKS } from "../helpers/example-tasks.js";
import { startMockHttpServer } from "../helpers/mock-http-server.js";
import { readSummary, treeContents } from "../helpers/outputs.js";
import { readPidFile } from "../helpers/processes.js";
import { reply } from "../helpers/replies.js";

// Every command a user could copy from README.md and docs/ci.md is run here as the docs write it
// (read from the docs, so an edit to them is tested), in a copy of the checkout, with the built
// binary; its exit code and output are compared with what the docs say. Commands that cannot run
// here are listed in NOT_RUN with the reason.

const README = await readFile("README.md", "utf8");
const CI_DOC = await readFile("docs/ci.md", "utf8");

/** Each doc's command blocks, by their first line: the test that runs them, or why none does. */
const BLOCKS: Record<"README.md" | "docs/ci.md", Record<string, string>> = {
  "README.md": {
    'npm ci && npm run build && node bin/agent-run.js --offline "tasks/*.yaml"': "quick start",
    "node bin/agent-run.js view agent-runs -o view.html": "viewer of the quick start",
    "npm test": "not run: it is this suite",
    "export ANTHROPIC_API_KEY=sk-ant-...": "the real API",
    'agent-run --offline "tasks/*.yaml"': "on PATH",
    '$ agent-run "fixtures/bad-tasks/max-steps-not-a-number.yaml" "fixtures/bad-tasks/unknown-tool.yaml"':
      "validation",
    "# every task that did not pass, with its status": "README jq",
    "# workspace is a repository's root, or not inside a repository:": "git apply",
    "$ agent-run report --compare /tmp/base /tmp/new": "compare",
    "$ agent-run export --swebench preds.jsonl --atif trajectories agent-runs":
      "exports: test/docs/readme-exports.test.ts",
    "agent-run view agent-runs -o view.html                          # the quick start's batch":
      "viewer commands",
    "$ agent-run --trials 3 -j 1 tasks/add-farewell.yaml tasks/fix-failing-test.yaml tasks/rename-function.yaml":
      "trials",
    "$ agent-run --offline tasks/*.yaml --out /tmp/b -j 1      # Ctrl-C during the second task, exit 130":
      "not run: the example tasks end before a Ctrl-C lands; test/cli/interrupted-batch.test.ts interrupts a batch at a task that waits, then resumes it",
    "$ agent-run --offline tasks/fix-failing-test.yaml --max-steps 2 --out /tmp/d3    # max_steps, exit 1":
      "resume and replay",
    "$ agent-run plan tasks/add-farewell.yaml tasks/fix-failing-test.yaml tasks/rename-function.yaml --history agent-runs":
      "plan with history",
    '$ agent-run plan --offline "tasks/*.yaml" --budget-usd 10 --refuse-over-budget > /dev/null':
      "plan refuses",
    "npm run check    # biome (lint + format check) and tsc --noEmit": "development scripts",
  },
  "docs/ci.md": {
    "$ agent-run list --json \"tasks/*.yaml\" --shard 3/3 | jq -c '.[] | {name, file}'": "list",
    "export GITHUB_ACTIONS=true": "try it locally",
    '$ for i in 1 2 3; do agent-run --offline "tasks/*.yaml" --shard $i/3 --out shards/$i; done':
      "sharding",
    '$ JOB_COMPLETION_INDEX=1 AGENT_RUN_SHARD_COUNT=3 agent-run --offline "tasks/*.yaml" --shard auto --out k8s-shard':
      "shard auto",
    "code=0": "exit-code recipe",
    'out="$RUNNER_TEMP/agent-runs"': "jq recipes",
    'agent-run report --compare previous/report.json "$out" --json comparison.json \\':
      "compare gate",
  },
};

/** The block of `doc` that BLOCKS labels `label`. */
function blockLabelled(doc: keyof typeof BLOCKS, label: string) {
  const firstLine = Object.entries(BLOCKS[doc]).find(([, value]) => value === label)?.[0];
  if (firstLine === undefined) throw new Error(`BLOCKS labels no ${doc} block ${label}`);
  return blockStartingWith(doc === "README.md" ? README : CI_DOC, firstLine);
}

/** Commands inside the run blocks that the tests leave out, and why. */
const NOT_RUN = {
  "npm ci": "installs from the registry; the suite runs on this checkout's node_modules",
  "npm run build": "the suite's pretest has built bin/ and dist/, which the sandbox links",
  "npm install -g .": "writes to the global prefix; the sandbox puts an agent-run shim on PATH",
  "npm test": "it is this suite",
  "npm run check, npm run build, npm run schema, npm run bench":
    "the project's own scripts (CI runs check and test; bench is no test); checked to exist",
};

describe("the docs' command blocks", () => {
  test("every block a user could copy commands from is run below or listed as not run", () => {
    for (const [doc, text] of [
      ["README.md", README],
      ["docs/ci.md", CI_DOC],
    ] as const) {
      const firstLines = commandBlocks(text).map((block) => block.text.split("\n")[0]);
      expect(firstLines, doc).toEqual(Object.keys(BLOCKS[doc]));
    }
    // What is left out is still in the README's blocks (a stale entry fails).
    const blockText = commandBlocks(README)
      .map((block) => block.text)
      .join("\n");
    for (const command of Object.keys(NOT_RUN).flatMap((entry) => entry.split(", "))) {
      expect(blockText.includes(command) || README.includes(`\`${command}\``), command).toBe(true);
    }
  });

  test("the development scripts exist in package.json (not run: NOT_RUN says why)", async () => {
    const scripts = (
      JSON.parse(await readFile("package.json", "utf8")) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    const block = blockStartingWith(
      README,
      "npm run check    # biome (lint + format check) and tsc --noEmit",
    );
    const names = [...block.text.matchAll(/^npm (?:run (\S+)|(test))/gm)].map(
      (match) => match[1] ?? match[2] ?? "",
    );
    expect(names).toEqual(["check", "test", "build", "schema", "bench"]);
    for (const name of names) expect(scripts[name], name).toBeDefined();
  });
});

describe("README: quick start, PATH, validation, git apply, compare, resume", {
  timeout: 120_000,
}, () => {
  let box: DocSandbox;
  let quickStart: Awaited<ReturnType<DocSandbox["sh"]>>;
  beforeAll(async () => {
    box = await docSandbox();
    const block = blockLabelled("README.md", "quick start");
    quickStart = await box.sh(block.text.replace("npm ci && npm run build && ", ""));
  }, 120_000);
  afterAll(async () => {
    await box[Symbol.asyncDispose]();
  });

  test("the quick start runs the eleven examples: 11/11 passed, exit 0, outputs in agent-runs/", async () => {
    expect(quickStart.stderr).not.toMatch(/internal error/);
    expect(quickStart.code).toBe(0);
    expect(quickStart.stdout).toContain("11/11 passed");
    const names = [
      "add-farewell",
      "fix-failing-test",
      "rename-function",
      "deepseek-add-divide",
      "text-protocol-default-name",
      "think-add-shout",
      "ticket-lookup",
      "mcp-ticket-fix",
      "plan-add-subtract",
      "subagent-greet-french",
      "triage-issue",
    ];
    for (const name of names) {
      expect(await readSummary(join(box.root, "agent-runs", name))).toMatchObject({
        name,
        status: "completed",
      });
    }
    await expect(readFile(join(box.root, "agent-runs/report.json"), "utf8")).resolves.toMatch(
      /"schema_version": 2/,
    );
    expect(quickStart.stderr).toMatch(/^\[fix-failing-test\] step 1 bash: /m);
    expect(quickStart.stderr).toMatch(/^\[fix-failing-test\] check passed: tests pass$/m);
  });

  test("its stdout is the final table README shows, durations aside", () => {
    const shown = blockStartingWith(
      README,
      "| task                       | status    | passed | checks | plan | steps |  tokens |    cost | files | duration |",
    );
    expect(comparableOutput(quickStart.stdout.trimEnd())).toEqual(comparableOutput(shown.text));
  });

  test("the viewer after it: one file with the example tasks, their timelines and their diffs", async () => {
    const block = blockLabelled("README.md", "viewer of the quick start");
    const run = await box.sh(block.text);

    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(run.stdout).toMatch(
      new RegExp(`^view\\.html: ${EXAMPLE_TASKS.length} tasks, [\\d.]+ KiB; open it in a browser`),
    );
    const page = await viewerPage(join(box.root, "view.html"));
    const tasks = page.batches[0]?.tasks ?? [];
    expect(tasks).toHaveLength(EXAMPLE_TASKS.length);
    for (const task of tasks) {
      const taskRun = task.runs[0];
      expect(taskRun?.timeline?.agent.steps.length).toBeGreaterThan(2);
      // triage-issue reads the code and answers; every other example changes files.
      const changesFiles = taskRun?.changes.files.some((file) => file.lines.length > 0);
      expect([task.name, changesFiles]).toEqual([task.name, task.name !== "triage-issue"]);
    }
  });

  test("its progress lines for fix-failing-test are the ones README shows, durations aside", () => {
    const shown = fencedBlocks(README).find((block) =>
      block.text.startsWith("[fix-failing-test] started ("),
    );
    const lines = quickStart.stderr
      .split("\n")
      .filter((line) => line.startsWith("[fix-failing-test] "))
      .join("\n");
    expect(comparableOutput(lines)).toEqual(comparableOutput(shown?.text ?? ""));
  });

  test("docs/transcript.md's jq one-liners run on the quick start's transcripts", async () => {
    const doc = await readFile("docs/transcript.md", "utf8");
    const block = blockStartingWith(doc, "# the final status of every task of a batch");
    const recipes = block.text.split("\n").filter((line) => line.startsWith("jq "));
    const runs = await Promise.all(
      recipes.map((recipe) =>
        box.sh(recipe.replace("agent-runs/x/", "agent-runs/fix-failing-test/")),
      ),
    );
    const [results, commands, failedChecks] = runs;

    expect(runs.map((run) => [run.code, run.stderr])).toEqual(recipes.map(() => [0, ""]));
    expect(results?.stdout.trimEnd().split("\n")).toHaveLength(11);
    expect(results?.stdout).toMatch(
      /^\{"status":"completed","num_turns":5,"total_cost_usd":0\.014345\}$/m,
    );
    expect(commands?.stdout).toBe("1 exit 0\n4 exit 0\n");
    expect(failedChecks?.stdout).toBe("");
  });

  test("README's jq one-liners run on the quick start's outputs", async () => {
    const block = blockLabelled("README.md", "README jq");
    const recipes = block.text.split("\n").filter((line) => line.startsWith("jq "));
    const [failed, calls] = await Promise.all(recipes.map((recipe) => box.sh(recipe)));

    expect(recipes).toHaveLength(2);
    expect([failed?.code, failed?.stderr, failed?.stdout]).toEqual([0, "", ""]);
    expect([calls?.code, calls?.stderr]).toEqual([0, ""]);
    const names = calls?.stdout.trimEnd().split("\n") ?? [];
    expect(names.length).toBeGreaterThan(1);
    expect(new Set(names)).toContain("bash");
  });

  test("agent-run on PATH runs the examples offline", async () => {
    const block = blockStartingWith(README, 'agent-run --offline "tasks/*.yaml"');
    const run = await box.sh(`${block.text} --out on-path`);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain("11/11 passed (100.0%)");
  });

  test("validation prints what README shows, with exit 2", async () => {
    const block = blockLabelled("README.md", "validation");
    const [session] = sessionCommands(block);
    const run = await box.sh(session?.command ?? "");

    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split("\n")).toEqual(session?.output);
  });

  test("git apply, in a workspace outside a repository and with --directory inside one", async () => {
    const block = blockStartingWith(
      README,
      "# workspace is a repository's root, or not inside a repository:",
    );
    const [, outside = "", , inside = ""] = block.text.split("\n");
    const expected = await treeContents(join(box.root, "agent-runs/add-farewell/workspace"));
    const copy = join(box.root, ".tmp/greeter");
    await box.sh(`cp -r fixtures/workspaces/greeter "${copy}"`);
    const first = await box.sh(
      outside
        .replace("path/to/workspace", copy)
        .replace("/abs/path/", `${box.root}/`)
        .replace("<task>", "add-farewell"),
    );
    expect(first.code).toBe(0);
    expect(await treeContents(copy)).toEqual(expected);

    const git = "git -c user.name=t -c user.email=t@t";
    await box.sh(`git init -q && ${git} add tasks fixtures && ${git} commit -qm start`);
    const inSubfolder = await box.sh(
      "git apply -v ../../../agent-runs/add-farewell/changes.patch",
      {},
      join(box.root, "fixtures/workspaces/greeter"),
    );
    expect([inSubfolder.code, inSubfolder.stderr]).toEqual([
      0,
      expect.stringContaining("Skipped patch"),
    ]);
    const second = await box.sh(inside);
    expect(second.code).toBe(0);
    expect(await treeContents(join(box.root, "fixtures/workspaces/greeter"))).toEqual(expected);
  });

  test("report --compare prints what README shows", async () => {
    const block = blockStartingWith(README, "$ agent-run report --compare /tmp/base /tmp/new");
    const [refused, allowed] = sessionCommands(block);
    await box.sh(
      "cp -r agent-runs base && cp -r agent-runs new && agent-run --offline tasks/fix-failing-test.yaml --max-steps 4 --out new",
    );
    const first = await box.sh((refused?.command ?? "").replaceAll("/tmp/", ""));
    const second = await box.sh((allowed?.command ?? "").replaceAll("/tmp/", ""));

    // Other limits: refused, exit 2, the message on stderr (README shows it with /tmp/ paths).
    expect([first.code, first.stdout]).toEqual([2, ""]);
    expect(first.stderr.trimEnd()).toBe(refused?.output.join("\n").replaceAll("/tmp/", ""));
    expect(second.code).toBe(0);
    expect(comparableOutput(second.stdout.trimEnd())).toEqual(
      comparableOutput(allowed?.output.join("\n") ?? ""),
    );
  });

  test("the viewer commands write their pages: the batch, the flipped task, the replay", async () => {
    const block = blockLabelled("README.md", "viewer commands");
    await box.sh("agent-run replay agent-runs/fix-failing-test/transcript.jsonl");
    const runs = [];
    for (const command of block.text.split("\n"))
      runs.push(await box.sh(command.replaceAll("/tmp/", "")));

    expect(runs.map((run) => [run.code, run.stderr])).toEqual([
      [0, ""],
      [0, ""],
      [0, ""],
    ]);
    expect((await viewerPage(join(box.root, "view.html"))).batches[0]?.tasks).toHaveLength(
      EXAMPLE_TASKS.length,
    );
    const compare = await viewerPage(join(box.root, "compare.html"));
    expect(compare.compare?.rows.filter((row) => row.verdict !== "unchanged")).toEqual([
      expect.objectContaining({ name: "fix-failing-test", verdict: "pass_to_fail" }),
    ]);
    const replays = await viewerPage(join(box.root, "replays.html"));
    expect(replays.batches[0]?.tasks[0]?.runs[0]?.divergence).toMatchObject({ divergentSteps: [] });
  });

  test("the JUnit example is what report --junit writes for that max_steps run", async () => {
    const shown = fencedBlocks(README).find((block) => block.lang === "xml")?.text ?? "";
    await box.sh("agent-run report new --junit new.xml");
    const xml = await readFile(join(box.root, "new.xml"), "utf8");
    const written = /^ *<testcase classname="tasks\/fix-failing-test"[\s\S]*?<\/testcase>/m.exec(
      xml,
    );
    const comparable = (text: string) =>
      text
        .replace(/time="[\d.]+"/, 'time="T"')
        .split("\n")
        .map((line) => line.trim());
    expect(comparable(written?.[0] ?? "")).toEqual(comparable(shown));
  });

  test("resume and replay: each command's exit code and status as its comment says", async () => {
    const block = blockLabelled("README.md", "resume and replay");
    const sessions = sessionCommands(block).map((session) => ({
      ...session,
      command: session.command.replaceAll("/tmp/", `${box.root}/`),
    }));
    for (const session of sessions) {
      const run = await box.sh(session.command);
      const claim = /# (\w+), exit (\d)$/.exec(session.command);
      if (claim === null) {
        expect(run.code, session.command).toBe(2);
        expect(run.stderr.trimEnd()).toBe(
          session.output.join("\n").replaceAll("/tmp/", `${box.root}/`),
        );
        continue;
      }
      expect(run.code, session.command).toBe(Number(claim[2]));
      // The run folder: `--out`'s task folder, else the folder resumed.
      const out = /--out (\S+)/.exec(session.command)?.[1];
      const runDir =
        out === undefined ? session.command.split(" ")[2] : join(out, "fix-failing-test");
      expect(await readSummary(runDir ?? "")).toMatchObject({ status: claim[1] });
    }
    expect(sessions).toHaveLength(4);
  });

  test("plan --history: the forecast README shows, from the quick start's report", async () => {
    const [session] = sessionCommands(blockLabelled("README.md", "plan with history"));
    const run = await box.sh(session?.command ?? "");

    expect(run.code).toBe(0);
    expect(comparableOutput(run.stdout.trimEnd())).toEqual(
      comparableOutput(session?.output.join("\n") ?? ""),
    );
  });

  test("plan --refuse-over-budget: exit 2 and the line README shows", async () => {
    const [session] = sessionCommands(blockLabelled("README.md", "plan refuses"));
    const run = await box.sh(session?.command ?? "");

    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr.trimEnd().split("\n")).toEqual(session?.output);
  });
});

describe("README: the real API", { timeout: 120_000 }, () => {
  test("the real API: the Claude tasks run with only ANTHROPIC_API_KEY (API mocked on 127.0.0.1)", async () => {
    await using server = await startMockHttpServer();
    // Nine tasks; triage-issue's text reply is not its JSON object, so it is sent back twice more.
    for (let call = 0; call < 11; call++) server.queue(reply().text("Nothing to do."));
    const block = blockStartingWith(README, "export ANTHROPIC_API_KEY=sk-ant-...");
    await using box = await docSandbox();
    const run = await box.sh(block.text, { ANTHROPIC_BASE_URL: server.url });

    expect(run.stderr).not.toMatch(/is not set|did you mean|internal error/);
    expect(run.code).toBe(1); // a text-only reply changes nothing, so the checks fail
    const keys = server.headers.map(
      (headers) => headers["x-api-key"] ?? headers.authorization?.replace(/^Bearer /, ""),
    );
    expect(keys).toEqual(Array(11).fill("sk-ant-..."));
    const all = await box.sh('node bin/agent-run.js "tasks/*.yaml"', {
      ANTHROPIC_API_KEY: "sk-ant-...",
    });
    expect(all.code).toBe(2);
    expect(all.stderr).toMatch(/DEEPSEEK_API_KEY is not set/);
  });
});

describe("README: trials", { timeout: 120_000 }, () => {
  test("three trials against a model that fails one print the table README shows", async () => {
    await using server = await startMockHttpServer();
    for (const name of ["add-farewell", "fix-failing-test", "rename-function"]) {
      const replies = await loadReplies(`fixtures/replies/${name}.yaml`);
      for (const trial of [1, 2, 3]) {
        // The second trial of fix-failing-test: the model gives up at once.
        if (name === "fix-failing-test" && trial === 2) {
          server.queue(reply().text("I could not find the bug.").usage(1850, 12));
        } else {
          server.queue(...replies);
        }
      }
    }
    const [session] = sessionCommands(blockLabelled("README.md", "trials"));
    await using box = await docSandbox();
    const run = await box.sh(session?.command ?? "", {
      ANTHROPIC_API_KEY: "sk-ant-...",
      ANTHROPIC_BASE_URL: server.url,
    });

    expect(run.code).toBe(1);
    expect(server.remaining()).toBe(0);
    expect(comparableOutput(run.stdout.trimEnd())).toEqual(
      comparableOutput(session?.output.join("\n") ?? ""),
    );
  });
});

describe("docs/ci.md: try it locally, the jq and exit-code recipes, sharding", {
  timeout: 120_000,
}, () => {
  let box: DocSandbox;
  let local: Awaited<ReturnType<DocSandbox["sh"]>>;
  /** The docs' `/tmp/` paths, in the sandbox. */
  const here = (text: string) => text.replaceAll("/tmp/", `${box.root}/`);
  beforeAll(async () => {
    box = await docSandbox();
    const fixTask = fencedBlocks(CI_DOC).find((block) =>
      block.text.includes("# fix-failing-test with two checks it cannot pass."),
    );
    await writeFile(join(box.root, "tasks/fix.yaml"), fixTask?.text ?? "");
    local = await box.sh(here(blockStartingWith(CI_DOC, "export GITHUB_ACTIONS=true").text));
  }, 120_000);
  afterAll(async () => {
    await box[Symbol.asyncDispose]();
  });

  test("try it locally: exit 1, the groups and annotations on stderr as shown", () => {
    expect(local.stdout).toContain("exit 1\n");
    const shown = blockStartingWith(CI_DOC, "::group::add-farewell: passed (checks 3/3)").text;
    const commands = local.stderr.split("\n").filter((line) => line.startsWith("::"));
    const shownLines = shown.split("\n");
    // Groups are written as tasks end, so in any order; each annotation as shown, up to its `…`.
    expect(commands.filter((line) => line.startsWith("::group")).sort()).toEqual(
      shownLines.filter((line) => line.startsWith("::group")).sort(),
    );
    const annotations = commands.filter((line) => /^::(error|warning)/.test(line));
    expect(annotations).toHaveLength(shownLines.filter((line) => /^::error/.test(line)).length);
    for (const [index, line] of shownLines.filter((each) => /^::error/.test(each)).entries()) {
      expect(annotations[index]?.startsWith(line.replace(/…$/, ""))).toBe(true);
    }
  });

  test("try it locally: the job summary and the step outputs are the ones shown", () => {
    const summary = here(blockStartingWith(CI_DOC, "## agent-run").text).split("\n");
    const shown = summary.slice(0, summary.indexOf("…"));
    const printed = comparableOutput(local.stdout);
    const start = printed.indexOf("## agent-run");
    expect(printed.slice(start, start + shown.length)).toEqual(comparableOutput(shown.join("\n")));
    const outputs = here(blockStartingWith(CI_DOC, "passed=11").text);
    expect(local.stdout).toContain(`${outputs}\n`);
  });

  test("the jq recipes run on those outputs and print what their comments promise", async () => {
    const block = blockStartingWith(CI_DOC, 'out="$RUNNER_TEMP/agent-runs"').text.split("\n");
    const [preamble = "", ...rest] = block;
    const recipes = rest.filter((line) => line.startsWith("jq "));
    const env = { RUNNER_TEMP: box.root };
    const runs = await Promise.all(recipes.map((recipe) => box.sh(`${preamble}\n${recipe}`, env)));
    const [totals, perTask, why, changed] = runs;

    expect(recipes).toHaveLength(4);
    expect(runs.map((run) => run.stderr)).toEqual(["", "", "", ""]);
    expect(totals?.stdout).toBe("11/12 passed, $0.164872\n");
    const rows = (perTask?.stdout ?? "")
      .trimEnd()
      .split("\n")
      .map((row) => row.split("\t"));
    expect(rows).toHaveLength(12);
    expect(rows.find((row) => row[0] === "fix")).toEqual([
      "fix",
      "completed",
      "false",
      "5",
      "0.014345",
      "1",
    ]);
    expect(why?.stdout).toBe(
      "fix: completed; failed checks: says all green, file_exists: CHANGELOG.md\n",
    );
    expect([changed?.code, changed?.stdout]).toEqual([0, "true\n"]);
  });

  test("the exit-code recipe: without a key, exit 2 and its ::error line", async () => {
    const run = await box.sh(blockStartingWith(CI_DOC, "code=0").text, {
      RUNNER_TEMP: join(box.root, ".tmp"),
    });

    expect(run.code).toBe(2);
    expect(run.stdout).toBe("::error::task files or configuration are wrong\n");
    expect(run.stderr).toMatch(/ANTHROPIC_API_KEY is not set/);
  });

  test("the compare gate: exit 0 on the same results; exit 1 once fix-failing-test fails every trial", async () => {
    const gate = blockLabelled("docs/ci.md", "compare gate").text;
    const tasks = "tasks/fix-failing-test.yaml tasks/add-farewell.yaml";
    for (const out of ["previous", "now"])
      await box.sh(`agent-run --offline ${tasks} --trials 5 --out ${out} > /dev/null 2>&1`);
    const env = { out: join(box.root, "now"), GITHUB_STEP_SUMMARY: join(box.root, "gate.md") };

    const same = await box.sh(gate, env);
    for (const trial of [1, 2, 3, 4, 5]) {
      const file = join(box.root, `now/fix-failing-test/trial-${trial}/summary.json`);
      const summary = JSON.parse(await readFile(file, "utf8"));
      await writeFile(file, JSON.stringify({ ...summary, status: "max_steps", passed: false }));
    }
    const fallen = await box.sh(gate, env);

    expect([same.code, same.stderr]).toEqual([0, ""]);
    expect([fallen.code, fallen.stderr]).toEqual([1, ""]);
    const summary = await readFile(join(box.root, "gate.md"), "utf8");
    expect(summary).toContain(
      "No regression: the mean pass rate's interval reaches zero or above.",
    );
    expect(summary).toContain("Regression: fix-failing-test regressed (p = 0.004).");
    const comparison = JSON.parse(await readFile(join(box.root, "comparison.json"), "utf8"));
    expect(comparison.regression.regressed_tasks).toEqual(["fix-failing-test"]);
  });

  test("sharding: each shard's line, then the merged report as shown", async () => {
    const block = blockLabelled("docs/ci.md", "sharding");
    const [loop, report] = sessionCommands(block);
    const shards = await box.sh(loop?.command ?? "");
    const merged = await box.sh(report?.command ?? "");

    expect(shards.code).toBe(1);
    const shardLines = loop?.output.filter((line) => line !== "…");
    expect(shards.stderr.split("\n").filter((line) => line.startsWith("agent-run: shard"))).toEqual(
      shardLines,
    );
    expect(merged.code).toBe(0);
    expect(comparableOutput(merged.stdout.trimEnd())).toEqual(
      comparableOutput(report?.output.join("\n") ?? ""),
    );
  });

  test("list --json: the shard's tasks as shown", async () => {
    const [session] = sessionCommands(blockLabelled("docs/ci.md", "list"));
    const run = await box.sh(session?.command ?? "");

    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split("\n")).toEqual(session?.output);
  });

  test("--shard auto: the line shown, and the tasks of --shard 2/3", async () => {
    const [session] = sessionCommands(blockLabelled("docs/ci.md", "shard auto"));
    const run = await box.sh(session?.command ?? "");
    const explicit = await box.sh('agent-run list --json "tasks/*.yaml" --shard 2/3');

    expect(run.code).toBe(0);
    expect(run.stderr.split("\n").filter((line) => line.startsWith("agent-run: shard"))).toEqual(
      session?.output.filter((line) => line !== "…"),
    );
    const ran = await readdir(join(box.root, "k8s-shard"), { withFileTypes: true });
    const listed = (JSON.parse(explicit.stdout) as { name: string }[]).map((task) => task.name);
    expect(
      ran
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort(),
    ).toEqual(listed.sort());
  });
});

/** The data of a viewer page, read back from its HTML file. */
async function viewerPage(file: string): Promise<ViewPage> {
  const html = await readFile(file, "utf8");
  const json = /<script type="application\/json" id="view-data">(.*?)<\/script>/s.exec(html)?.[1];
  return JSON.parse(json ?? "null") as ViewPage;
}

/** An in-process io whose stdout breaks: a bug in agent-run's own code, as far as `main` can tell. */
function brokenStdoutIo(err: string[]): CliIo {
  return {
    env: { PATH: process.env.PATH },
    writeOut: () => {
      throw new Error("stdout broke");
    },
    writeErr: (line) => err.push(line),
    isColor: false,
    columns: 100,
  };
}

/**
 * A task whose one command sleeps, started in the background (`exec`: the shell becomes agent-run,
 * so its pid is agent-run's); resolves once the command runs.
 */
async function startSleepingTask(box: DocSandbox) {
  await writeFile(
    join(box.root, "sleepy.replies.yaml"),
    '- content: [{ type: tool_use, name: bash, input: { command: "echo $$ > pid.txt; sleep 30" } }]\n- content: [{ type: text, text: never }]\n',
  );
  await writeFile(
    join(box.root, "sleepy.yaml"),
    "prompt: Wait.\nworkspace: fixtures/workspaces/greeter\nreplies: sleepy.replies.yaml\n",
  );
  const running = box.start("exec agent-run --offline sleepy.yaml --out sleepy-out");
  await readPidFile(join(box.root, "sleepy-out/sleepy/workspace/pid.txt"), 60_000);
  return running;
}

describe("README's exit-code table: a scenario per code", { timeout: 120_000 }, () => {
  let box: DocSandbox;
  beforeAll(async () => {
    box = await docSandbox();
  });
  afterAll(async () => {
    await box[Symbol.asyncDispose]();
  });

  /** Each code of the table: how a run gets it, here or in the test named. */
  const SCENARIOS: Record<string, () => Promise<void>> = {
    "0": async () => {
      expect((await box.sh("agent-run --offline tasks/rename-function.yaml")).code).toBe(0);
      // `report`: 0 once every folder was read, whatever the tasks' results.
      await box.sh("agent-run --offline tasks/fix-failing-test.yaml --max-steps 2 --out failed");
      expect((await box.sh("agent-run report failed")).code).toBe(0);
    },
    "1": async () => {
      const run = await box.sh("agent-run --offline tasks/fix-failing-test.yaml --max-steps 2");
      expect(run.code).toBe(1);
      expect(run.stdout).toContain("0/1 passed");
    },
    "2": async () => {
      const run = await box.sh('agent-run --ofline "tasks/*.yaml"');
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("did you mean --offline?");
      expect((await box.sh('agent-run --offline "tasks/*.yaml" --shard 4/3')).code).toBe(2);
    },
    "3": async () => {
      const err: string[] = [];
      expect(await main(["--version"], { io: brokenStdoutIo(err) })).toBe(3);
      expect(err.join("\n")).toMatch(/internal error \(please report it\)/);
    },
    "130": async () => {
      const { pid, done } = await startSleepingTask(box);
      if (pid === undefined) throw new Error("agent-run did not start");
      process.kill(pid, "SIGINT");
      const run = await done;
      expect(run.code).toBe(130);
      expect(await readSummary(join(box.root, "sleepy-out/sleepy"))).toMatchObject({
        status: "cancelled",
      });
    },
    "143": async () => {
      // SIGTERM (143) and SIGHUP (129) are run, with their cleanup, in test/cli/spawned.test.ts.
      const spawned = await readFile("test/cli/spawned.test.ts", "utf8");
      expect(spawned).toContain('{ signal: "SIGTERM" as const, code: 143 }');
      expect(spawned).toContain('{ signal: "SIGHUP" as const, code: 129 }');
    },
  };

  test("the table lists exactly the codes with a scenario", () => {
    const codes = tableAfter(README, "## Exit codes").map((row) => row[0]?.replaceAll("`", ""));
    expect(codes).toEqual(Object.keys(SCENARIOS));
  });

  test.each(Object.keys(SCENARIOS))("exit code %s", async (code) => {
    await SCENARIOS[code]?.();
  });
});

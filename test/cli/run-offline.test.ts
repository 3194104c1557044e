import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { applyPatchToCopy, readSummary, readTranscript, treeContents } from "../helpers/outputs.js";
import { runCli } from "../helpers/run-cli.js";

let out: string;
beforeEach(async () => {
  out = await mkdtemp(join(tmpdir(), "agent-run-out-"));
});
afterEach(async () => {
  await rm(out, { recursive: true, force: true });
});

const EXAMPLES = {
  "fix-failing-test": "fixtures/workspaces/calculator",
  "add-farewell": "fixtures/workspaces/greeter",
  "rename-function": "fixtures/workspaces/calculator",
  "deepseek-add-divide": "fixtures/workspaces/calculator",
  "text-protocol-default-name": "fixtures/workspaces/greeter",
  "think-add-shout": "fixtures/workspaces/greeter",
  "ticket-lookup": "fixtures/workspaces/tracker",
  "mcp-ticket-fix": "fixtures/workspaces/shop",
  "plan-add-subtract": "fixtures/workspaces/calculator",
  "subagent-greet-french": "fixtures/workspaces/greeter",
} as const;
// Not here: triage-issue, whose patch is empty (it changes nothing), which `git apply` refuses.

describe("agent-run --offline tasks/*.yaml (the README's first command)", () => {
  test("runs every example task to completed, leaving the originals untouched", async () => {
    const before = await treeContents("fixtures/workspaces");
    const run = await runCli(["--offline", "tasks/*.yaml", "--out", out]);

    expect(run.stderr).not.toMatch(/internal error/);
    expect(run.exitCode).toBe(0);
    for (const name of [...Object.keys(EXAMPLES), "triage-issue"]) {
      const summary = await readSummary(join(out, name));
      expect(summary).toMatchObject({ name, status: "completed", error: null });
    }
    // The example of structured output changes nothing: it answers with a JSON object.
    expect(await readSummary(join(out, "triage-issue"))).toMatchObject({
      changed_files: [],
      structured_output: { label: "bug", severity: "high", files: ["src/editor.js"] },
    });
    expect(await treeContents("fixtures/workspaces")).toEqual(before);
    expect(run.stdout).toMatch(/^\| total +\| +\| 11\/11 +\| +33\/33 \|/m);
    expect(run.stdout).toContain("11/11 passed (100.0%)");
  });

  test.each(Object.entries(EXAMPLES))(
    "%s: changes.patch applied to the original reproduces the final workspace",
    async (name, workspace) => {
      const run = await runCli(["--offline", `tasks/${name}.yaml`, "--out", out]);
      expect(run.exitCode).toBe(0);

      const runDir = join(out, name);
      const summary = await readSummary(runDir);
      const numstat = await applyPatchToCopy(
        workspace,
        join(out, "applied"),
        resolve(runDir, "changes.patch"),
      );
      expect(await treeContents(join(out, "applied"))).toEqual(
        await treeContents(join(runDir, "workspace")),
      );
      const changed = summary.changed_files as Array<{
        path: string;
        additions: number;
        deletions: number;
      }>;
      expect(changed.length).toBeGreaterThan(0);
      expect(
        new Map(
          changed.map((file) => [file.path, [String(file.additions), String(file.deletions)]]),
        ),
      ).toEqual(numstat);
    },
  );

  test("the transcript starts with init, alternates assistant and user lines, and ends with the result", async () => {
    await runCli(["--offline", "tasks/fix-failing-test.yaml", "--out", out]);
    const lines = await readTranscript(join(out, "fix-failing-test"));

    expect(lines[0]).toMatchObject({ type: "system", subtype: "init", schema_version: 3 });
    expect(lines.map((line) => line.type)).toEqual([
      "system",
      ...Array.from({ length: 4 }, () => ["assistant", "user"]).flat(),
      "assistant",
      "check",
      "check",
      "check",
      "result",
    ]);
    expect(lines.at(-1)).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      status: "completed",
      num_turns: 5,
      usage: { input_tokens: 2695, output_tokens: 315 },
    });
    const bashResults = lines.filter((line) => line.type === "user" && line.tool_name === "bash");
    expect(bashResults.map((line) => line.exit_code)).toEqual([0, 0]);
    const lastBash = JSON.stringify(bashResults.at(-1));
    expect(lastBash).toContain("# pass 2");
    expect(
      await readFile(join(out, "fix-failing-test", "workspace", "src", "math.js"), "utf8"),
    ).toContain("return a + b;");
  });

  test("the provider examples record their provider, protocol and reasoning, and replay --strict", async () => {
    const names = ["deepseek-add-divide", "text-protocol-default-name", "think-add-shout"];
    const run = await runCli([
      "--offline",
      ...names.map((name) => `tasks/${name}.yaml`),
      "--out",
      out,
    ]);
    expect(run.exitCode, run.stderr).toBe(0);

    const [deepseek, text, think] = await Promise.all(
      names.map((name) => readTranscript(join(out, name))),
    );
    expect(deepseek?.[0]).toMatchObject({
      task: {
        provider: { name: "deepseek", api: "openai", compat: { reasoning_send_back: true } },
      },
    });
    const blocksOf = (lines: typeof deepseek) =>
      (lines ?? []).flatMap((line) =>
        line.type === "assistant"
          ? (line.message as { content: Array<{ type: string }> }).content
          : [],
      );
    expect(blocksOf(deepseek).filter((block) => block.type === "reasoning")).toHaveLength(3);
    expect(text?.[0]).toMatchObject({
      task: { tool_protocol: "text", provider: { name: "ollama" } },
    });
    expect(blocksOf(text).filter((block) => block.type === "tool_use")).toHaveLength(3);
    expect(think?.[0]).toMatchObject({
      task: { reasoning: { effort: "high", budget_tokens: null } },
    });
    expect(blocksOf(think).filter((block) => block.type === "thinking")).toEqual([
      expect.objectContaining({ signature: expect.stringMatching(/^ErUB/) }),
      expect.objectContaining({ signature: expect.stringMatching(/^ErUB/) }),
      { type: "thinking", thinking: "", signature: expect.stringMatching(/^ErUB/) },
    ]);

    for (const name of names) {
      const replay = await runCli([
        "replay",
        join(out, name, "transcript.jsonl"),
        "-o",
        join(out, "replayed"),
        "--strict",
      ]);
      expect(replay.exitCode, `${name}: ${replay.stderr}`).toBe(0);
    }
  });

  test("the command-tool example records its tools and their exit codes, and replays --strict", async () => {
    const run = await runCli(["--offline", "tasks/ticket-lookup.yaml", "--out", out]);
    expect(run.exitCode, run.stderr).toBe(0);

    const lines = await readTranscript(join(out, "ticket-lookup"));
    expect(lines[0]).toMatchObject({
      tools: ["read_file", "edit_file", "lookup_ticket", "run_tests"],
      task: {
        tools: ["read_file", "edit_file"],
        command_tools: [
          { name: "lookup_ticket", command: "node tools/lookup-ticket.mjs", timeout_ms: 60_000 },
          { name: "run_tests", command: "node tools/run-tests.mjs", timeout_ms: 120_000 },
        ],
      },
    });
    const results = lines.filter((line) => line.type === "user");
    expect(results.map((line) => [line.tool_name, line.exit_code])).toEqual([
      ["lookup_ticket", 0],
      ["read_file", undefined],
      ["run_tests", 1],
      ["edit_file", undefined],
      ["run_tests", 0],
    ]);
    expect(JSON.stringify(results.at(-1))).toContain("# pass 3");

    const replay = await runCli([
      "replay",
      join(out, "ticket-lookup", "transcript.jsonl"),
      "-o",
      join(out, "replayed"),
      "--strict",
    ]);
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stderr).toMatch(/replay: no divergence/);
  });
});

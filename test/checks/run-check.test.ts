import { describe, expect, test } from "vitest";
import { evaluateRunCheck, MAX_CHECK_OUTPUT_CHARS } from "../../src/checks/run-check.js";
import type { Check } from "../../src/checks/types.js";
import { checkContext } from "../helpers/check-context.js";
import { readPidFile, waitUntilGone } from "../helpers/processes.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const runCheck = (command: string, timeoutMs = 10_000): Extract<Check, { kind: "run" }> => ({
  kind: "run",
  name: `run: ${command}`,
  line: 4,
  command,
  timeoutMs,
});

describe("evaluateRunCheck", () => {
  test("passes on exit 0, running in the workspace with only the given environment", async () => {
    await using ws = await tmpWorkspace({ files: { "marker.txt": "in the workspace\n" } });
    const ctx = checkContext(ws.root, {
      baseEnv: { PATH: process.env.PATH ?? "", GREETING: "hi" },
    });

    const outcome = await evaluateRunCheck(
      runCheck('cat marker.txt; echo "$GREETING home=$HOME"'),
      ctx,
    );

    expect(outcome).toEqual({
      passed: true,
      message: '`cat marker.txt; echo "$GREETING home=$HOME"` exited with code 0',
      output: "in the workspace\nhi home=\n[exit code: 0]",
    });
  });

  test("fails on a non-zero exit, keeping the output", async () => {
    await using ws = await tmpWorkspace();

    const outcome = await evaluateRunCheck(
      runCheck("echo 'not ok 1 - adds'; exit 3"),
      checkContext(ws.root),
    );

    expect(outcome).toEqual({
      passed: false,
      message: "`echo 'not ok 1 - adds'; exit 3` exited with code 3",
      output: "not ok 1 - adds\n[exit code: 3]",
    });
  });

  test("a command past its timeout fails, and its whole process tree is killed", async () => {
    await using ws = await tmpWorkspace();
    const startedAt = Date.now();

    const outcome = await evaluateRunCheck(
      runCheck("sleep 30 & echo $! > bg.pid; echo started; wait", 500),
      checkContext(ws.root),
    );

    const backgroundPid = await readPidFile(ws.path("bg.pid"));
    expect(outcome.passed).toBe(false);
    expect(outcome.message).toBe(
      "`sleep 30 & echo $! > bg.pid; echo started; wait` timed out after 500ms; process tree killed",
    );
    expect(outcome.output).toContain("started");
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(await waitUntilGone(backgroundPid)).toBe(true);
  });

  test("caps long output, keeping its start and end", async () => {
    await using ws = await tmpWorkspace();

    const outcome = await evaluateRunCheck(
      runCheck("echo first; head -c 50000 /dev/zero | tr '\\0' x; echo; echo last"),
      checkContext(ws.root),
    );

    expect(outcome.passed).toBe(true);
    expect(outcome.output?.length).toBeLessThan(MAX_CHECK_OUTPUT_CHARS + 200);
    expect(outcome.output).toMatch(/^first\n/);
    expect(outcome.output).toMatch(/\[\.\.\. \d+ characters cut \.\.\.\]/);
    expect(outcome.output).toMatch(/last\n\[exit code: 0\]$/);
  });

  test("a cancelled run fails without running the command", async () => {
    await using ws = await tmpWorkspace();
    const controller = new AbortController();
    controller.abort();

    const outcome = await evaluateRunCheck(
      runCheck("touch ran.txt"),
      checkContext(ws.root, { signal: controller.signal }),
    );

    expect(outcome).toEqual({
      passed: false,
      message: "`touch ran.txt` was cancelled; process tree killed",
      output: "(not run)\n[cancelled]",
    });
  });
});

import { describe, expect, test } from "vitest";
import { runChecks } from "../../src/checks/run-checks.js";
import type { Check } from "../../src/checks/types.js";
import { checkContext } from "../helpers/check-context.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

describe("runChecks", () => {
  test("evaluates every kind in order; a failing check is a result, not a throw", async () => {
    await using ws = await tmpWorkspace({ files: { "README.md": "Hello\n" } });
    const checks: Check[] = [
      {
        kind: "run",
        name: "writes",
        line: 4,
        command: "echo Goodbye >> README.md",
        timeoutMs: 5_000,
      },
      { kind: "file_contains", name: "says goodbye", line: 5, path: "README.md", text: "Goodbye" },
      { kind: "file_exists", name: "has farewell", line: 6, path: "src/farewell.js" },
      { kind: "file_absent", name: "no old", line: 7, path: "old.js" },
      { kind: "file_matches", name: "hello", line: 8, path: "README.md", pattern: "^Hello$" },
      {
        kind: "changed_files",
        name: "small",
        line: 9,
        only: ["README.md"],
        must: undefined,
        max: 1,
      },
      { kind: "final_text_matches", name: "done", line: 10, pattern: "(?i)done" },
    ];
    const ctx = checkContext(ws.root, {
      changedFiles: [
        { path: "README.md", status: "modified", additions: 1, deletions: 0, binary: false },
      ],
      finalText: "All done.",
    });

    const results = await runChecks(checks, ctx);

    expect(
      results.every((result) => Number.isInteger(result.durationMs) && result.durationMs >= 0),
    ).toBe(true);
    expect(results.map(({ durationMs: _, ...result }) => result)).toEqual([
      {
        name: "writes",
        kind: "run",
        passed: true,
        message: "`echo Goodbye >> README.md` exited with code 0",
        output: "(no output)\n[exit code: 0]",
        line: 4,
      },
      {
        name: "says goodbye",
        kind: "file_contains",
        passed: true,
        message: 'README.md contains "Goodbye"',
        output: null,
        line: 5,
      },
      {
        name: "has farewell",
        kind: "file_exists",
        passed: false,
        message: "src/farewell.js does not exist",
        output: null,
        line: 6,
      },
      {
        name: "no old",
        kind: "file_absent",
        passed: true,
        message: "old.js does not exist",
        output: null,
        line: 7,
      },
      {
        name: "hello",
        kind: "file_matches",
        passed: false,
        message: "README.md does not match /^Hello$/",
        output: null,
        line: 8,
      },
      {
        name: "small",
        kind: "changed_files",
        passed: true,
        message: "1 file changed as expected: README.md",
        output: null,
        line: 9,
      },
      {
        name: "done",
        kind: "final_text_matches",
        passed: true,
        message: "the final message matches /done/i",
        output: null,
        line: 10,
      },
    ]);
  });

  test("a check that cannot be evaluated fails with the reason, and the rest still run", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "a" } });
    const checks: Check[] = [
      { kind: "final_text_matches", name: "broken", line: 3, pattern: "(unclosed" },
      { kind: "file_exists", name: "a", line: 4, path: "a.txt" },
    ];

    const results = await runChecks(checks, checkContext(ws.root));

    expect(results.map((result) => [result.name, result.passed, result.message])).toEqual([
      [
        "broken",
        false,
        "could not be evaluated: Invalid regular expression: /(unclosed/: Unterminated group",
      ],
      ["a", true, "a.txt exists"],
    ]);
  });

  test("no checks, no results", async () => {
    await using ws = await tmpWorkspace();

    await expect(runChecks([], checkContext(ws.root))).resolves.toEqual([]);
  });
});

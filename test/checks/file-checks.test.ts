import { mkdir, symlink } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { evaluateFileCheck } from "../../src/checks/file-checks.js";
import type { Check } from "../../src/checks/types.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const FILES = {
  "README.md": "# Greeter\n\nSays Hello and Goodbye.\n",
  "src/math.js": "export function add(a, b) {\n  return a + b;\n}\n",
};

const at = { name: "check", line: 5 };

describe("evaluateFileCheck", () => {
  test("each kind passing, with a message saying what was found", async () => {
    await using ws = await tmpWorkspace({ files: FILES });
    const checks: Check[] = [
      { kind: "file_exists", ...at, path: "src/math.js" },
      { kind: "file_absent", ...at, path: "src/old.js" },
      { kind: "file_contains", ...at, path: "README.md", text: "Goodbye" },
      { kind: "file_matches", ...at, path: "src/math.js", pattern: "return a \\+ b" },
      { kind: "file_matches", ...at, path: "README.md", pattern: "(?i)says HELLO" },
    ];

    const outcomes = await Promise.all(checks.map((check) => evaluate(check, ws.root)));

    expect(outcomes).toEqual([
      { passed: true, message: "src/math.js exists", output: null },
      { passed: true, message: "src/old.js does not exist", output: null },
      { passed: true, message: 'README.md contains "Goodbye"', output: null },
      { passed: true, message: "src/math.js matches /return a \\+ b/", output: null },
      { passed: true, message: "README.md matches /says HELLO/i", output: null },
    ]);
  });

  test("each kind failing, with what was expected and found", async () => {
    await using ws = await tmpWorkspace({ files: FILES });
    const checks: Check[] = [
      { kind: "file_exists", ...at, path: "src/farewell.js" },
      { kind: "file_exists", ...at, path: "src" },
      { kind: "file_absent", ...at, path: "src/math.js" },
      { kind: "file_absent", ...at, path: "src" },
      { kind: "file_contains", ...at, path: "README.md", text: "goodbye" },
      { kind: "file_contains", ...at, path: "CHANGELOG.md", text: "Goodbye" },
      { kind: "file_matches", ...at, path: "src/math.js", pattern: "return a - b" },
      { kind: "file_matches", ...at, path: "README.md", pattern: "^says hello" },
      { kind: "file_matches", ...at, path: "src", pattern: "x" },
    ];

    const outcomes = await Promise.all(checks.map((check) => evaluate(check, ws.root)));

    expect(outcomes.map((outcome) => [outcome.passed, outcome.message])).toEqual([
      [false, "src/farewell.js does not exist"],
      [false, "src is a folder, not a file"],
      [false, "src/math.js exists"],
      [false, "src exists (a folder)"],
      [false, 'README.md does not contain "goodbye"'],
      [false, "CHANGELOG.md does not exist"],
      [false, "src/math.js does not match /return a - b/"],
      [false, "README.md does not match /^says hello/"],
      [false, "src is a folder, not a file"],
    ]);
  });

  test("a path leading out of the workspace through a symbolic link fails cleanly, for every kind", async () => {
    await using outside = await tmpWorkspace({ files: { "secret.txt": "Goodbye" } });
    await using ws = await tmpWorkspace({ files: FILES });
    await symlink(outside.path("secret.txt"), ws.path("leak.txt"));
    await mkdir(ws.path("docs"));
    await symlink(outside.root, ws.path("docs/shared"));
    const checks: Check[] = [
      { kind: "file_exists", ...at, path: "leak.txt" },
      { kind: "file_absent", ...at, path: "docs/shared/secret.txt" },
      { kind: "file_contains", ...at, path: "leak.txt", text: "Goodbye" },
      { kind: "file_matches", ...at, path: "docs/shared/secret.txt", pattern: "Good" },
    ];

    const outcomes = await Promise.all(checks.map((check) => evaluate(check, ws.root)));

    expect(outcomes).toEqual([
      {
        passed: false,
        message:
          'path "leak.txt" leads through a symbolic link to outside the workspace; use a path inside the workspace',
        output: null,
      },
      {
        passed: false,
        message:
          'path "docs/shared/secret.txt" leads through a symbolic link to outside the workspace; use a path inside the workspace',
        output: null,
      },
      {
        passed: false,
        message:
          'path "leak.txt" leads through a symbolic link to outside the workspace; use a path inside the workspace',
        output: null,
      },
      {
        passed: false,
        message:
          'path "docs/shared/secret.txt" leads through a symbolic link to outside the workspace; use a path inside the workspace',
        output: null,
      },
    ]);
  });

  test("links inside the workspace are followed; a dangling link fails with the reason", async () => {
    await using ws = await tmpWorkspace({ files: FILES });
    await symlink("src/math.js", ws.path("math-link.js"));
    await symlink("src/gone.js", ws.path("dangling.js"));

    const [inside, dangling] = await Promise.all([
      evaluate({ kind: "file_contains", ...at, path: "math-link.js", text: "a + b" }, ws.root),
      evaluate({ kind: "file_exists", ...at, path: "dangling.js" }, ws.root),
    ]);

    expect(inside).toEqual({
      passed: true,
      message: 'math-link.js contains "a + b"',
      output: null,
    });
    expect(dangling).toEqual({
      passed: false,
      message: 'path "dangling.js" is a symbolic link whose target does not exist',
      output: null,
    });
  });

  test("long expected text is shortened in the message", async () => {
    await using ws = await tmpWorkspace({ files: FILES });
    const text = "y".repeat(100);

    const outcome = await evaluate(
      { kind: "file_contains", ...at, path: "README.md", text },
      ws.root,
    );

    expect(outcome.message).toBe(`README.md does not contain "${"y".repeat(60)}…"`);
  });
});

function evaluate(check: Check, workspace: string) {
  if (
    check.kind === "run" ||
    check.kind === "changed_files" ||
    check.kind === "final_text_matches" ||
    check.kind === "plan_complete" ||
    check.kind === "output_equals"
  ) {
    throw new Error(`not a file check: ${check.kind}`);
  }
  return evaluateFileCheck(check, { workspace });
}

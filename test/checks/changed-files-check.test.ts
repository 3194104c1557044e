import { describe, expect, test } from "vitest";
import { evaluateChangedFilesCheck } from "../../src/checks/changed-files-check.js";
import type { Check } from "../../src/checks/types.js";
import type { ChangedFile } from "../../src/workspace/changes.js";

type ChangedFilesCheck = Extract<Check, { kind: "changed_files" }>;

const expecting = (fields: Partial<Pick<ChangedFilesCheck, "only" | "must" | "max">>) => ({
  kind: "changed_files" as const,
  name: "changes",
  line: 9,
  only: undefined,
  must: undefined,
  max: undefined,
  ...fields,
});

const changed = (...paths: string[]): ChangedFile[] =>
  paths.map((path) => ({ path, status: "modified", additions: 1, deletions: 0, binary: false }));

describe("evaluateChangedFilesCheck", () => {
  test("passes when only, must and max all hold; globs match dotfiles and nested folders", () => {
    const check = expecting({ only: ["src/**", "README.md"], must: ["src/math.js"], max: 3 });

    const outcome = evaluateChangedFilesCheck(
      check,
      changed("README.md", "src/.env.example", "src/math.js"),
    );

    expect(outcome).toEqual({
      passed: true,
      message: "3 files changed as expected: README.md, src/.env.example, src/math.js",
      output: null,
    });
  });

  test("only: lists the changed paths that match none of the globs", () => {
    const check = expecting({ only: ["src/**", "README.md"] });

    const outcome = evaluateChangedFilesCheck(
      check,
      changed("src/math.js", "test/math.test.js", "package.json", "docs/README.md"),
    );

    expect(outcome).toEqual({
      passed: false,
      message: "changed outside src/**, README.md: test/math.test.js, package.json, docs/README.md",
      output: null,
    });
  });

  test("must: lists the globs no changed path matches; a deleted file counts as changed", () => {
    const check = expecting({ must: ["src/math.js", "test/*.test.js", "CHANGELOG.md"] });
    const files: ChangedFile[] = [
      { path: "CHANGELOG.md", status: "deleted", additions: 0, deletions: 3, binary: false },
    ];

    const outcome = evaluateChangedFilesCheck(check, files);

    expect(outcome).toEqual({
      passed: false,
      message: "no changed file matches src/math.js, test/*.test.js",
      output: null,
    });
  });

  test("max: fails past it; several failures are reported together", () => {
    const check = expecting({ only: ["src/**"], must: ["README.md"], max: 1 });

    const outcome = evaluateChangedFilesCheck(check, changed("a.txt", "src/b.js"));

    expect(outcome).toEqual({
      passed: false,
      message:
        "changed outside src/**: a.txt; no changed file matches README.md; 2 files changed, more than max 1",
      output: null,
    });
  });

  test("no changes pass only and max, and fail must; long lists are cut", () => {
    const many = Array.from({ length: 14 }, (_, i) => `x${i}.txt`);

    const outcomes = [
      evaluateChangedFilesCheck(expecting({ only: ["src/**"], max: 2 }), []),
      evaluateChangedFilesCheck(expecting({ must: ["src/**"] }), []),
      evaluateChangedFilesCheck(expecting({ only: ["src/**"] }), changed(...many)),
    ];

    expect(outcomes.map((outcome) => [outcome.passed, outcome.message])).toEqual([
      [true, "no files changed, as expected"],
      [false, "no changed file matches src/**"],
      [
        false,
        "changed outside src/**: x0.txt, x1.txt, x2.txt, x3.txt, x4.txt, x5.txt, x6.txt, x7.txt, x8.txt, x9.txt and 4 more",
      ],
    ]);
  });
});

import { describe, expect, test } from "vitest";
import { taskFileAnnotations } from "../../src/report/github-actions.js";

describe("taskFileAnnotations", () => {
  test("past 10 problems, 9 are annotated and one points at the step's log for the rest", () => {
    const problems = Array.from({ length: 11 }, (_, i) => ({
      file: "tasks/bad.yaml",
      line: i + 1,
      column: 1,
      path: "",
      message: `problem ${i + 1}`,
    }));

    const lines = taskFileAnnotations(problems);

    expect(lines).toHaveLength(10);
    expect(lines[8]).toBe(
      "::error file=tasks/bad.yaml,line=9,col=1,title=agent-run%3A invalid task file::problem 9",
    );
    expect(lines[9]).toBe(
      "::error title=agent-run%3A 2 more errors::2 more errors are not shown as annotations (GitHub shows 10); see the step's log",
    );
  });
});

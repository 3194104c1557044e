import { describe, expect, test } from "vitest";
import { evaluatePlanCheck } from "../../src/checks/plan-check.js";

describe("plan_complete", () => {
  test("passes only when the plan has items and every one is completed", () => {
    expect(
      evaluatePlanCheck([
        { content: "a", status: "completed" },
        { content: "b", status: "completed" },
      ]),
    ).toEqual({ passed: true, message: "every item of the plan is completed (2)", output: null });
    expect(
      evaluatePlanCheck([
        { content: "a", status: "completed" },
        { content: "b", status: "in_progress" },
        { content: "c", status: "pending" },
      ]),
    ).toEqual({
      passed: false,
      message: '2 of 3 plan items are not completed: "b" (in_progress), "c" (pending)',
      output: null,
    });
  });

  test("no plan, or an empty one, fails and says so", () => {
    expect(evaluatePlanCheck(undefined)).toMatchObject({
      passed: false,
      message: "the agent wrote no plan (todo_write was never called)",
    });
    expect(evaluatePlanCheck([])).toMatchObject({
      passed: false,
      message: "the agent's plan is empty",
    });
  });

  test("names at most five unfinished items", () => {
    const plan = Array.from({ length: 8 }, (_, index) => ({
      content: `s${index}`,
      status: "pending" as const,
    }));
    expect(evaluatePlanCheck(plan).message).toBe(
      '8 of 8 plan items are not completed: "s0" (pending), "s1" (pending), "s2" (pending), "s3" (pending), "s4" (pending) and 3 more',
    );
  });
});

import { describe, expect, test } from "vitest";
import { liveModels } from "../../src/cli/models.js";
import type { Task } from "../../src/task/schema.js";

const API_KEY = "sk-ant-test-0123456789";

describe("liveModels", () => {
  test("gives every task of a batch the same client", () => {
    const factory = liveModels(2, API_KEY, {});

    const first = factory({ name: "a" } as Task);
    const second = factory({ name: "b" } as Task);

    expect(second).toBe(first);
  });
});

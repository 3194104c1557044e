import { describe, expect, test } from "vitest";
import { liveModels } from "../../src/cli/models.js";
import type { ProviderSettings, Task } from "../../src/task/schema.js";

const API_KEY = "sk-ant-test-0123456789";

function taskOn(name: string, provider: Partial<ProviderSettings> = {}): Task {
  return {
    name,
    file: `${name}.yaml`,
    toolProtocol: "native",
    provider: {
      name: "anthropic",
      api: "anthropic",
      baseURL: "https://api.anthropic.com",
      apiKeyEnv: "ANTHROPIC_API_KEY",
      compat: {},
      origin: undefined,
      ...provider,
    },
  } as Task;
}

describe("liveModels", () => {
  test("gives every task of a batch on the same endpoint the same client", async () => {
    const [a, b] = [taskOn("a"), taskOn("b")];
    const factory = await liveModels([a, b], { ANTHROPIC_API_KEY: API_KEY });

    const first = factory(a, "claude-sonnet-5-5");
    const second = factory(b, "claude-sonnet-5-5");

    expect(second).toBe(first);
  });

  test("tasks on another base URL get their own client", async () => {
    const [a, b] = [taskOn("a"), taskOn("b", { baseURL: "http://127.0.0.1:9/gateway" })];
    const factory = await liveModels([a, b], { ANTHROPIC_API_KEY: API_KEY });

    expect(factory(b, "m")).not.toBe(factory(a, "m"));
  });
});

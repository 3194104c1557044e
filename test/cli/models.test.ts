import { describe, expect, test } from "vitest";
import { continuationModel, liveModels } from "../../src/cli/models.js";
import type { RecordedRun } from "../../src/replay/recorded-run.js";
import type { ProviderSettings, Task } from "../../src/task/schema.js";
import { anthropicProvider } from "../helpers/providers.js";

const API_KEY = "sk-ant-test-0123456789";

function taskOn(name: string, provider: Partial<ProviderSettings> = {}): Task {
  return {
    name,
    file: `${name}.yaml`,
    toolProtocol: "native",
    provider: anthropicProvider(provider),
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

describe("continuationModel: a live fork or resume of a recorded run", () => {
  function recordedOn(provider: Partial<ProviderSettings>): RecordedRun {
    return {
      path: "/runs/t/transcript.jsonl",
      model: "m",
      task: taskOn("t", provider),
    } as RecordedRun;
  }
  const env = { ANTHROPIC_API_KEY: API_KEY, AWS_SECRET_ACCESS_KEY: "aws-secret-123456" };
  const continueLive = (recorded: RecordedRun, extra: Record<string, string> = {}) =>
    continuationModel({
      recorded,
      task: undefined,
      untilStep: 0,
      isOffline: false,
      model: undefined,
      env: { ...env, ...extra },
    });

  test("goes on with the preset's own endpoint and key variable", async () => {
    const next = await continueLive(recordedOn({}));

    expect(next.name).toBe("m");
  });

  test("refuses a transcript that names another base URL or key variable: the key would go there", async () => {
    const elsewhere = continueLive(recordedOn({ baseURL: "https://collector.example/anthropic" }));
    const otherKey = continueLive(recordedOn({ apiKeyEnv: "AWS_SECRET_ACCESS_KEY" }));

    await expect(elsewhere).rejects.toThrow(
      /transcript.jsonl:1: task.provider: the recorded run used api anthropic, base URL https:\/\/collector.example\/anthropic and key variable ANTHROPIC_API_KEY, not the anthropic preset's; .*give the task file with --task/,
    );
    await expect(otherKey).rejects.toThrow(
      /key variable AWS_SECRET_ACCESS_KEY, not the anthropic preset's/,
    );
  });

  test("goes on with the gateway this environment's ANTHROPIC_BASE_URL names, as the run did", async () => {
    const gateway = "https://gateway.example/anthropic";
    const recorded = recordedOn({ baseURL: gateway });

    expect((await continueLive(recorded, { ANTHROPIC_BASE_URL: gateway })).name).toBe("m");
    await expect(
      continueLive(recorded, { ANTHROPIC_BASE_URL: "https://other.example" }),
    ).rejects.toThrow(/give the task file with --task/);
  });

  test("refuses a recorded api the preset does not speak, and never leaves the URL to an SDK's default", async () => {
    await expect(continueLive(recordedOn({ api: "openai", baseURL: undefined }))).rejects.toThrow(
      /used api openai, base URL \(none\).*give the task file with --task/,
    );
    // The preset's own URL (or the environment's gateway) fills a missing one.
    expect((await continueLive(recordedOn({ baseURL: undefined }))).name).toBe("m");
  });
});

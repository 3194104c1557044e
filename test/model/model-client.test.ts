import { describe, expect, test } from "vitest";
import { usageOf } from "../../src/model/model-client.js";
import { toMessagesUsage } from "../../src/model/openai/chat-reply.js";

describe("token counts from a server, in both wire formats", () => {
  test.each([
    ["negative", -1e9],
    ["NaN", Number.NaN],
    ["infinite", Number.POSITIVE_INFINITY],
    ["a string", "12"],
    ["null", null],
  ])("a count that is %s counts as 0", (_name, bad) => {
    expect(usageOf({ input_tokens: 5, output_tokens: bad, cache_read_input_tokens: bad })).toEqual({
      inputTokens: 5,
      outputTokens: 0,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
    });
    expect(toMessagesUsage({ prompt_tokens: 5, completion_tokens: bad })).toMatchObject({
      input_tokens: 5,
      output_tokens: 0,
    });
  });
});

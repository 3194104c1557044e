import { describe, expect, test } from "vitest";
import { ELIDED_RESULT, fitContext, messageChars } from "../../src/agent/context.js";
import type { Message } from "../../src/model/model-client.js";

function conversation(results: number, size: number): Message[] {
  const messages: Message[] = [{ role: "user", content: "do it" }];
  for (let i = 0; i < results; i += 1) {
    messages.push({
      role: "assistant",
      content: [{ type: "tool_use", id: `t${i}`, name: "bash", input: { command: "cat big" } }],
    });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `t${i}`, content: "x".repeat(size) }],
    });
  }
  return messages;
}

const sizeOf = (messages: Message[]) =>
  messages.reduce((sum, message) => sum + messageChars(message), 0);

describe("fitContext", () => {
  test("under budget, nothing changes", () => {
    const messages = conversation(3, 1_000);
    const before = JSON.stringify(messages);

    expect(fitContext(messages, 10_000, sizeOf(messages))).toEqual({
      chars: sizeOf(messages),
      removed: 0,
    });
    expect(JSON.stringify(messages)).toBe(before);
  });

  test("over budget, the oldest results are elided down to 70% of it, the newest kept", () => {
    const messages = conversation(10, 10_000);
    const result = fitContext(messages, 20_000, sizeOf(messages));

    expect(result.chars).toBeLessThanOrEqual(20_000 * 4 * 0.7);
    expect(result.chars).toBe(sizeOf(messages));
    const contents = messages.flatMap((message) =>
      typeof message.content === "string"
        ? []
        : message.content.flatMap((block) => (block.type === "tool_result" ? [block.content] : [])),
    );
    expect(contents.slice(0, result.removed).every((content) => content === ELIDED_RESULT)).toBe(
      true,
    );
    expect(contents.at(-1)).toBe("x".repeat(10_000));
  });

  test("200 steps of 10 KB outputs stay under the budget at every step", () => {
    const messages: Message[] = [{ role: "user", content: "go" }];
    let chars = messageChars(messages[0] as Message);
    let largest = 0;
    for (let step = 0; step < 200; step += 1) {
      chars = fitContext(messages, 50_000, chars).chars;
      largest = Math.max(largest, chars);
      for (const message of conversation(1, 10_000).slice(1)) {
        messages.push(message);
        chars += messageChars(message);
      }
    }

    expect(largest / 4).toBeLessThanOrEqual(50_000);
  });
});

import type { ApiMessage, AssistantBlock } from "../../src/model/model-client.js";

/** A scripted HTTP failure, served instead of a reply. */
export type HttpFailure = {
  kind: "http_error";
  status: number;
  body: unknown;
  headers?: Record<string, string>;
};

/**
 * A stream that starts like `message` and breaks off after `events` events: the connection drops,
 * or with `errorType` the stream ends with an API error event of that type.
 */
export type BrokenStream = {
  kind: "broken_stream";
  message: ApiMessage;
  events: number;
  errorType?: string;
};

/** A reply stream sent byte for byte as given (see `hostile-replies.ts`): malformed, oversize… */
export type RawStream = { kind: "raw_stream"; body: string };

/** What a mock model server serves for one request. */
export type Scripted = ApiMessage | HttpFailure | BrokenStream | RawStream;

let messageCounter = 0;

/** Fluent builder for one model reply: `reply().text("…").toolUse("bash", {command}).usage(120, 40)`. */
export class ReplyBuilder {
  readonly #content: AssistantBlock[] = [];
  #usage = {
    input_tokens: 10,
    output_tokens: 5,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  #stopReason: string | undefined;
  #toolCount = 0;

  text(text: string): this {
    this.#content.push({ type: "text", text });
    return this;
  }

  toolUse(name: string, input: Record<string, unknown>, id?: string): this {
    this.#toolCount += 1;
    this.#content.push({
      type: "tool_use",
      id: id ?? `toolu_test_${messageCounter + 1}_${this.#toolCount}`,
      name,
      input,
    });
    return this;
  }

  /** A thinking block as the API returns it, signature included (an empty text may still be signed). */
  thinking(thinking: string, signature: string): this {
    this.#content.push({ type: "thinking", thinking, signature });
    return this;
  }

  redactedThinking(data: string): this {
    this.#content.push({ type: "redacted_thinking", data });
    return this;
  }

  usage(input: number, output: number, cacheCreation = 0, cacheRead = 0): this {
    this.#usage = {
      input_tokens: input,
      output_tokens: output,
      cache_creation_input_tokens: cacheCreation,
      cache_read_input_tokens: cacheRead,
    };
    return this;
  }

  stop(reason: string): this {
    this.#stopReason = reason;
    return this;
  }

  build(model = "claude-sonnet-5-5"): ApiMessage {
    messageCounter += 1;
    const hasTools = this.#content.some((block) => block.type === "tool_use");
    return {
      id: `msg_test_${messageCounter}`,
      type: "message",
      role: "assistant",
      model,
      content: this.#content,
      stop_reason: this.#stopReason ?? (hasTools ? "tool_use" : "end_turn"),
      stop_sequence: null,
      usage: { ...this.#usage },
    };
  }
}

/** Starts a reply. */
export function reply(): ReplyBuilder {
  return new ReplyBuilder();
}

/** A scripted HTTP error, e.g. `httpError(429, {...}, {"retry-after": "0"})`. */
export function httpError(
  status: number,
  body?: unknown,
  headers?: Record<string, string>,
): HttpFailure {
  return {
    kind: "http_error",
    status,
    body: body ?? {
      type: "error",
      error: {
        type: status === 429 ? "rate_limit_error" : "api_error",
        message: `scripted ${status}`,
      },
    },
    ...(headers === undefined ? {} : { headers }),
  };
}

/** The server-sent events the Messages API streams for `message`, as one string. */
export function toSse(message: ApiMessage): string {
  const usage = message.usage;
  const events: Array<[string, unknown]> = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          ...message,
          content: [],
          stop_reason: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
    ],
  ];
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push([
        "content_block_start",
        { type: "content_block_start", index, content_block: { type: "text", text: "" } },
      ]);
      const text = String(block.text);
      const half = Math.ceil(text.length / 2);
      for (const part of [text.slice(0, half), text.slice(half)].filter((piece) => piece !== "")) {
        events.push([
          "content_block_delta",
          { type: "content_block_delta", index, delta: { type: "text_delta", text: part } },
        ]);
      }
    } else if (block.type === "tool_use") {
      events.push([
        "content_block_start",
        { type: "content_block_start", index, content_block: { ...block, input: {} } },
      ]);
      const json = JSON.stringify(block.input);
      const half = Math.ceil(json.length / 2);
      for (const part of [json.slice(0, half), json.slice(half)]) {
        events.push([
          "content_block_delta",
          {
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: part },
          },
        ]);
      }
    } else if (block.type === "thinking") {
      // As the API streams it: an empty block, the text in deltas, the signature last.
      events.push([
        "content_block_start",
        {
          type: "content_block_start",
          index,
          content_block: { type: "thinking", thinking: "", signature: "" },
        },
      ]);
      const thinking = String(block.thinking);
      const half = Math.ceil(thinking.length / 2);
      for (const part of [thinking.slice(0, half), thinking.slice(half)].filter((p) => p !== "")) {
        events.push([
          "content_block_delta",
          { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: part } },
        ]);
      }
      events.push([
        "content_block_delta",
        {
          type: "content_block_delta",
          index,
          delta: { type: "signature_delta", signature: String(block.signature) },
        },
      ]);
    } else {
      events.push([
        "content_block_start",
        { type: "content_block_start", index, content_block: block },
      ]);
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push([
    "message_delta",
    {
      type: "message_delta",
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    },
  ]);
  events.push(["message_stop", { type: "message_stop" }]);
  return events
    .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    .join("");
}

/** Tells a scripted failure from a reply (replies have open-ended keys, so `in` can't). */
export function isHttpFailure(item: Scripted): item is HttpFailure {
  return item.kind === "http_error";
}

/** Tells a broken stream from a reply. */
export function isBrokenStream(item: Scripted): item is BrokenStream {
  return item.kind === "broken_stream";
}

/** Tells a raw stream from a reply. */
export function isRawStream(item: Scripted): item is RawStream {
  return item.kind === "raw_stream";
}

/** A stream that breaks off after `events` server-sent events. */
export function brokenStream(message: ReplyBuilder, events = 3): BrokenStream {
  return { kind: "broken_stream", message: message.build(), events };
}

/** A stream that ends with an `error` event of the API's `errorType` after its first event. */
export function streamError(message: ReplyBuilder, errorType: string): BrokenStream {
  return { kind: "broken_stream", message: message.build(), events: 1, errorType };
}

/** Builds queued builders; passes finished items through. */
export function toScripted(item: Scripted | ReplyBuilder): Scripted {
  return item instanceof ReplyBuilder ? item.build() : item;
}

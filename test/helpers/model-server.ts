import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll } from "vitest";
import {
  isBrokenStream,
  isHttpFailure,
  isRawStream,
  type ReplyBuilder,
  type Scripted,
  toScripted,
  toSse,
} from "./replies.js";

/** The URL msw intercepts (the SDK's default); no test request ever leaves the process. */
export const MOCKED_MESSAGES_URL = "https://api.anthropic.com/v1/messages";

/** The msw-backed model API: queue replies, read back the request bodies the SDK sent. */
export type ModelServer = {
  /** Queues replies (or HTTP failures) served in order; an empty queue answers 500 and fails the test. */
  queue(...items: Array<Scripted | ReplyBuilder>): void;
  /** Request bodies received, in order. */
  readonly requests: Array<Record<string, unknown>>;
  /** Queued items not yet served. */
  remaining(): number;
};

/**
 * Installs msw for the calling test file (`onUnhandledRequest: "error"`, so nothing reaches the
 * network) and returns the scripted model server. Call once at the top of a test file.
 */
export function useModelServer(): ModelServer {
  const queue: Scripted[] = [];
  const requests: Array<Record<string, unknown>> = [];
  const server = setupServer(
    http.post(MOCKED_MESSAGES_URL, async ({ request }) => {
      requests.push((await request.json()) as Record<string, unknown>);
      return respond(queue.shift());
    }),
  );
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterEach(() => {
    queue.length = 0;
    requests.length = 0;
  });
  afterAll(() => server.close());
  return {
    queue: (...items) => {
      for (const item of items) queue.push(toScripted(item));
    },
    requests,
    remaining: () => queue.length,
  };
}

/** Turns a scripted item into the HTTP response the real API would give. */
export function respond(item: Scripted | undefined): Response {
  if (item === undefined) {
    return HttpResponse.json(
      {
        type: "error",
        error: { type: "api_error", message: "test model server: no reply queued" },
      },
      { status: 500, headers: { "x-should-retry": "false" } },
    );
  }
  if (isHttpFailure(item)) {
    return HttpResponse.json(item.body as Record<string, unknown>, {
      status: item.status,
      headers: item.headers ?? {},
    });
  }
  if (isRawStream(item)) {
    return new HttpResponse(item.body, { headers: { "content-type": "text/event-stream" } });
  }
  if (isBrokenStream(item)) {
    const events = toSse(item.message).split("\n\n").slice(0, item.events);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`${events.join("\n\n")}\n\n`));
        controller.error(new TypeError("terminated: the connection was reset"));
      },
    });
    return new HttpResponse(body, { headers: { "content-type": "text/event-stream" } });
  }
  return new HttpResponse(toSse(item), { headers: { "content-type": "text/event-stream" } });
}

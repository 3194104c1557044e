import { MalformedReplyError } from "./message-accumulator.js";

/** Statuses a `Response` may not be built with a body for. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The response, failing once its body grows past `maxBytes`: an SDK would buffer an endless line
 * (or an endless stream of ignored events) until the heap runs out. The source is cancelled with it.
 */
export function limitBodyBytes(response: Response, maxBytes: number): Response {
  if (response.body === null || NULL_BODY_STATUSES.has(response.status)) return response;
  let bytes = 0;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (bytes <= maxBytes) controller.enqueue(chunk);
        else controller.error(new MalformedReplyError(`the reply is over ${maxBytes} bytes`));
      },
    }),
  );
  const { status, statusText, headers } = response;
  return new Response(body, { status, statusText, headers });
}

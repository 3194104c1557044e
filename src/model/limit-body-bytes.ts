import { MalformedReplyError } from "./malformed-reply.js";
import { REPLY_LIMITS } from "./reply-limits.js";

/** Statuses a `Response` may not be built with a body for. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The response, failing once its body grows past `maxBytes`, or one of its lines past
 * `maxLineBytes`: an SDK would buffer an endless line (or an endless stream of ignored events)
 * until the heap runs out, joining its pieces at a cost that grows with the square of its length.
 * The source is cancelled with it.
 */
export function limitBodyBytes(
  response: Response,
  maxBytes: number,
  maxLineBytes: number = REPLY_LIMITS.maxLineBytes,
): Response {
  if (response.body === null || NULL_BODY_STATUSES.has(response.status)) return response;
  let bytes = 0;
  let lineBytes = 0;
  /** Counts the bytes since the last line break; true once a line is past its bound. */
  const isLineTooLong = (chunk: Uint8Array): boolean => {
    for (const byte of chunk) {
      if (byte === LF || byte === CR) lineBytes = 0;
      else if (++lineBytes > maxLineBytes) return true;
    }
    return false;
  };
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (bytes > maxBytes) {
          controller.error(new MalformedReplyError(`the reply is over ${maxBytes} bytes`));
        } else if (isLineTooLong(chunk)) {
          controller.error(
            new MalformedReplyError(`a line of the reply is over ${maxLineBytes} bytes`),
          );
        } else controller.enqueue(chunk);
      },
    }),
  );
  const { status, statusText, headers } = response;
  return new Response(body, { status, statusText, headers });
}

const LF = 0x0a;
const CR = 0x0d;

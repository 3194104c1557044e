import { ModelError } from "./model-client.js";

/**
 * A reply stream that breaks the protocol (a block out of order, a delta for a block that never
 * started, an event that is not an object, tool input that is not JSON) or a bound of
 * `ReplyLimits`. The model call fails like a broken stream: retried, then an error for the run.
 */
export class MalformedReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MalformedReplyError";
  }

  /** The call's failure once retries ran out: the server's fault, worth trying again later. */
  toModelError(): ModelError {
    return new ModelError(`the model API sent a malformed reply: ${this.message}`, {
      category: "server_error",
      isRetryable: true,
      cause: this,
    });
  }
}

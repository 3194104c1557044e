import { type ApiMessage, type ModelClient, ModelError, toModelReply } from "./model-client.js";

/**
 * Plays recorded or scripted replies in order, ignoring the request: the model for `--offline`
 * runs and for replays. Fails with a clear `ModelError` when the replies run out.
 */
export function createReplayModel(replies: readonly ApiMessage[], source: string): ModelClient {
  let next = 0;
  return {
    async complete(_request, { signal }) {
      if (signal.aborted) throw signal.reason;
      const message = replies[next];
      if (message === undefined) {
        throw new ModelError(
          `the scripted replies in ${source} ran out after ${replies.length} ${replies.length === 1 ? "reply" : "replies"}; add replies or end the last one without tool calls`,
        );
      }
      next += 1;
      return toModelReply(message);
    },
  };
}

import { withoutSignedBlocks } from "../agent/context.js";
import type { Message, ModelClient } from "../model/model-client.js";

/**
 * The live model of a fork or resume, when the recorded turns' signed reasoning cannot go to it:
 * it was signed for another model, or over another prompt (`--task` changed it), and the API would
 * refuse the request. Drops the signed blocks of the first `recordedTurns` assistant turns of
 * every request, the same way each time, so the blocks the new model signs stay valid.
 */
export function withoutRecordedReasoning(model: ModelClient, recordedTurns: number): ModelClient {
  return {
    complete: (request, options) =>
      model.complete({ ...request, messages: stripped(request.messages, recordedTurns) }, options),
  };
}

function stripped(messages: readonly Message[], recordedTurns: number): Message[] {
  let turn = 0;
  return messages.map((message) => {
    if (message.role !== "assistant") return message;
    turn += 1;
    return turn > recordedTurns
      ? message
      : { role: "assistant", content: withoutSignedBlocks(message.content) };
  });
}

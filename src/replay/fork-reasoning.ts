import {
  isSignedBlock,
  type Message,
  type ModelClient,
  withoutBlocks,
} from "../model/model-client.js";

/**
 * The live model of a fork or resume whose recorded signed thinking must not go to it: another
 * provider made it, or it is an offline recording's (made up). Drops the signed blocks of the
 * first `recordedTurns` assistant turns of every request, the same way each time.
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
      : { role: "assistant", content: withoutBlocks(message.content, isSignedBlock) };
  });
}

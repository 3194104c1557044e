import type { ApiMessage, ModelClient, ModelError } from "../model/model-client.js";
import { createReplayModel } from "../model/replay-model.js";

export type SplicedModelOptions = {
  /** Recorded replies served for steps 1..`untilStep`. */
  recorded: readonly ApiMessage[];
  untilStep: number;
  /** The model from step `untilStep + 1` on (fork, resume); without it the run ends there. */
  next: ModelClient | undefined;
  /** Called when the recording runs out and there is no `next` model; it decides how the run ends. */
  onRecordingEnd: () => ModelError;
  source: string;
};

/**
 * Serves a recording's first replies, then hands over to another model: the model of replay
 * (no `next`), fork (`--until-step K --continue`) and resume.
 */
export function createSplicedModel(options: SplicedModelOptions): ModelClient {
  const recording = createReplayModel(options.recorded.slice(0, options.untilStep), options.source);
  let calls = 0;
  return {
    async complete(request, completeOptions) {
      calls += 1;
      if (calls <= Math.min(options.untilStep, options.recorded.length)) {
        return recording.complete(request, completeOptions);
      }
      if (options.next === undefined) throw options.onRecordingEnd();
      return options.next.complete(request, completeOptions);
    },
  };
}

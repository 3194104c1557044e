import type { AgentEvent } from "../agent/events.js";
import { roundMillionths } from "../format.js";
import { addUsage, ZERO_USAGE } from "../model/model-client.js";
import { type PricedModel, type PriceTable, replyCostUsd } from "../model/pricing.js";
import type { ModelUsage } from "../transcript/result-line.js";
import type { RunTaskOptions } from "./run-options.js";

// Which model a run's step is priced as, and what each model of the run used and cost.

/** The model a step is priced as: a fork's recorded steps as the recorded model, the rest as the task's. */
export function pricedModelAt(
  options: Pick<RunTaskOptions, "task" | "modelName" | "recordedSteps">,
  step: number,
): PricedModel {
  const { recordedSteps } = options;
  if (recordedSteps !== undefined && step <= recordedSteps.steps) {
    return { provider: recordedSteps.provider, model: recordedSteps.model };
  }
  return { provider: options.task.provider.name, model: options.modelName };
}

/** Adds up each model's replies from the run's events, for the result line's `modelUsage`. */
export function createModelUsageTally(
  options: Pick<RunTaskOptions, "task" | "modelName" | "recordedSteps"> & { prices: PriceTable },
): { onEvent(event: AgentEvent): void; entries(): ModelUsage[] } {
  const byModel = new Map<string, ModelUsage>();
  return {
    onEvent(event) {
      if (event.type !== "model_reply") return;
      // A subagent's reply is priced at the top-level step its `task` call belongs to.
      const priced = pricedModelAt(options, event.subagent?.rootStep ?? event.step);
      const cost = replyCostUsd(options.prices, priced, event.reply);
      const entry = byModel.get(priced.model) ?? {
        model: priced.model,
        usage: ZERO_USAGE,
        costUsd: 0,
      };
      byModel.set(priced.model, {
        model: priced.model,
        usage: addUsage(entry.usage, event.reply.usage),
        costUsd: entry.costUsd === null || cost === null ? null : entry.costUsd + cost,
      });
    },
    // Rounded once, as the run's total is (see `Budget.spentUsd`).
    entries: () =>
      [...byModel.values()].map((entry) => ({
        ...entry,
        costUsd: entry.costUsd === null ? null : roundMillionths(entry.costUsd),
      })),
  };
}

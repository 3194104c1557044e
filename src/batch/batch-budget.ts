import type { LimitHit } from "../agent/events.js";
import { roundMillionths } from "../format.js";
import { totalTokens, type Usage } from "../model/model-client.js";

/** A batch's caps: `--budget-usd` and `--budget-tokens`. */
export type BatchLimits = { maxUsd: number | undefined; maxTokens: number | undefined };

/**
 * The spend of a whole batch, finished and running tasks together, updated after every model
 * reply. Once it reaches a cap, no task starts and running tasks stop at their next model call.
 */
export class BatchBudget {
  readonly #limits: BatchLimits;
  #spentUsd = 0;
  #spentTokens = 0;

  constructor(limits: BatchLimits) {
    this.#limits = limits;
  }

  /** Adds one reply's usage and its price (0 when unknown; `--budget-usd` refuses unknown prices up front). */
  record(usage: Usage, costUsd: number | null): void {
    this.#spentTokens += totalTokens(usage);
    this.#spentUsd += costUsd ?? 0;
  }

  /** The cap that has been reached, if any. */
  exhausted(): LimitHit | undefined {
    const { maxUsd, maxTokens } = this.#limits;
    if (maxUsd !== undefined && this.#spentUsd >= maxUsd) {
      return {
        limit: "budget",
        used: roundMillionths(this.#spentUsd),
        max: maxUsd,
        unit: "usd",
      };
    }
    if (maxTokens !== undefined && this.#spentTokens >= maxTokens) {
      return { limit: "budget", used: this.#spentTokens, max: maxTokens, unit: "tokens" };
    }
    return undefined;
  }
}

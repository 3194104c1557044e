import { addUsage, totalTokens, type Usage, ZERO_USAGE } from "../model/model-client.js";
import type { LimitName } from "./events.js";

/** The limits the loop enforces itself (the timeout arrives as an abort signal). */
export type BudgetLimits = {
  maxSteps: number;
  maxTokens: number;
  /** Per-task spending cap in USD; needs `costOf`. */
  maxCostUsd?: number | undefined;
};

/** Prices a usage in USD (null when the model has no known price). */
export type CostOf = (usage: Usage) => number | null;

/** A limit that has been reached, with the figures for the transcript. */
export type LimitHit = { limit: LimitName; used: number; max: number };

/**
 * Step and token accounting. Fail-closed: `beforeCall` refuses the call that would exceed
 * `maxSteps`, and `afterReply` reports the reply that took the total past `maxTokens`; once the
 * total reaches `maxTokens`, no further call is allowed.
 */
export class Budget {
  #steps = 0;
  #usage: Usage = ZERO_USAGE;
  readonly #limits: BudgetLimits;

  readonly #costOf: CostOf;

  constructor(limits: BudgetLimits, costOf: CostOf = () => null) {
    this.#limits = limits;
    this.#costOf = costOf;
  }

  get steps(): number {
    return this.#steps;
  }

  get usage(): Usage {
    return this.#usage;
  }

  /** Checks whether one more model call is allowed; counts it when it is. */
  beforeCall(): LimitHit | undefined {
    if (this.#steps >= this.#limits.maxSteps) {
      return { limit: "max_steps", used: this.#steps, max: this.#limits.maxSteps };
    }
    const tokens = totalTokens(this.#usage);
    if (tokens >= this.#limits.maxTokens) {
      return { limit: "max_tokens", used: tokens, max: this.#limits.maxTokens };
    }
    const cost = this.#costHit((spent, max) => spent >= max);
    if (cost !== undefined) return cost;
    this.#steps += 1;
    return undefined;
  }

  /** Adds a reply's usage; returns the token limit hit when this reply reached it. */
  afterReply(usage: Usage): LimitHit | undefined {
    this.#usage = addUsage(this.#usage, usage);
    const tokens = totalTokens(this.#usage);
    if (tokens > this.#limits.maxTokens)
      return { limit: "max_tokens", used: tokens, max: this.#limits.maxTokens };
    return this.#costHit((spent, max) => spent > max);
  }

  /** The cost limit, when set and `isHit(spent, max)`; an unknown price counts as reaching it. */
  #costHit(isHit: (spent: number, max: number) => boolean): LimitHit | undefined {
    const max = this.#limits.maxCostUsd;
    if (max === undefined) return undefined;
    const spent = this.#costOf(this.#usage);
    if (spent === null) return { limit: "max_cost", used: Number.NaN, max };
    return isHit(spent, max) ? { limit: "max_cost", used: spent, max } : undefined;
  }
}

import {
  addUsage,
  type ModelReply,
  totalTokens,
  type Usage,
  ZERO_USAGE,
} from "../model/model-client.js";
import type { LimitName } from "./events.js";

/** The limits the loop enforces itself (the timeout arrives as an abort signal). */
export type BudgetLimits = {
  maxSteps: number;
  maxTokens: number;
  /** Per-task spending cap in USD; needs `costOf`. */
  maxCostUsd?: number | undefined;
};

/**
 * Prices one reply in USD (null when its cost is unknown); see `replyCostUsd`. `step` is the
 * reply's step (from 1): a fork's recorded steps are priced as the recorded model.
 */
export type CostOf = (reply: ModelReply, step: number) => number | null;

/**
 * A limit that has been reached, with the figures for the transcript. `unit` says which cap of the
 * batch budget it was (`--budget-usd` or `--budget-tokens`); the other limits have one unit each.
 */
export type LimitHit = { limit: LimitName; used: number; max: number; unit?: "usd" | "tokens" };

/**
 * Step and token accounting. Fail-closed: `beforeCall` refuses the call that would exceed
 * `maxSteps`, and `afterReply` reports the reply that took the total past `maxTokens`; once the
 * total reaches `maxTokens`, no further call is allowed.
 */
export class Budget {
  #steps = 0;
  #usage: Usage = ZERO_USAGE;
  /** The replies' costs summed; null once one of them had no known cost. */
  #spentUsd: number | null = 0;
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

  /**
   * USD spent so far: the replies' unrounded costs summed and rounded once, to the micro-dollar
   * (the price table's unit; a sum of floats would also print as 0.30000000000000004).
   */
  get spentUsd(): number | null {
    return this.#spentUsd === null ? null : Math.round(this.#spentUsd * 1e6) / 1e6;
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

  /** Adds a reply's usage and cost; returns the token or cost limit hit when this reply reached it. */
  afterReply(reply: ModelReply): LimitHit | undefined {
    this.#usage = addUsage(this.#usage, reply.usage);
    const cost = this.#costOf(reply, this.#steps);
    this.#spentUsd = this.#spentUsd === null || cost === null ? null : this.#spentUsd + cost;
    const tokens = totalTokens(this.#usage);
    if (tokens > this.#limits.maxTokens)
      return { limit: "max_tokens", used: tokens, max: this.#limits.maxTokens };
    return this.#costHit((spent, max) => spent > max);
  }

  /** The cost limit, when set and `isHit(spent, max)`; a reply of unknown cost counts as reaching it. */
  #costHit(isHit: (spent: number, max: number) => boolean): LimitHit | undefined {
    const max = this.#limits.maxCostUsd;
    if (max === undefined) return undefined;
    if (this.#spentUsd === null) return { limit: "max_cost", used: Number.NaN, max };
    // Compared to the nano-dollar, finer than it is reported: a total rounded down to the cap
    // would let a run spend a little past it.
    const isOver = isHit(Math.round(this.#spentUsd * 1e9) / 1e9, max);
    return isOver
      ? { limit: "max_cost", used: Math.round(this.#spentUsd * 1e6) / 1e6, max }
      : undefined;
  }
}

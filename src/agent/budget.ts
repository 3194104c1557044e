import { addUsage, totalTokens, type Usage, ZERO_USAGE } from "../model/model-client.js";
import type { LimitName } from "./events.js";

/** The limits the loop enforces itself (the timeout arrives as an abort signal). */
export type BudgetLimits = { maxSteps: number; maxTokens: number };

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

  constructor(limits: BudgetLimits) {
    this.#limits = limits;
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
    this.#steps += 1;
    return undefined;
  }

  /** Adds a reply's usage; returns the token limit hit when this reply reached it. */
  afterReply(usage: Usage): LimitHit | undefined {
    this.#usage = addUsage(this.#usage, usage);
    const tokens = totalTokens(this.#usage);
    return tokens > this.#limits.maxTokens
      ? { limit: "max_tokens", used: tokens, max: this.#limits.maxTokens }
      : undefined;
  }
}

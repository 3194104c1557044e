import { roundMillionths } from "../format.js";
import {
  addUsage,
  type ModelReply,
  totalTokens,
  type Usage,
  ZERO_USAGE,
} from "../model/model-client.js";
import type { LimitHit } from "./events.js";

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
 * Step and token accounting. Fail-closed: `beforeCall` refuses the call that would exceed
 * `maxSteps`, and `afterReply` reports the reply that took the total past `maxTokens`; once the
 * total reaches `maxTokens`, no further call is allowed.
 *
 * A subagent's budget (`child`) has a step limit of its own and passes every call and reply up to
 * its parent's: a subagent's model calls, tokens and cost count against every limit above it.
 */
export class Budget {
  #steps = 0;
  #usage: Usage = ZERO_USAGE;
  /** The replies' costs summed; null once one of them had no known cost. */
  #spentUsd: number | null = 0;
  readonly #limits: BudgetLimits;
  readonly #costOf: CostOf;
  readonly #parent: Budget | undefined;
  /** 0 for the run's own budget, 1 for a subagent's, ... */
  readonly depth: number;

  constructor(limits: BudgetLimits, costOf: CostOf = () => null, parent?: Budget) {
    this.#limits = limits;
    this.#costOf = costOf;
    this.#parent = parent;
    this.depth = parent === undefined ? 0 : parent.depth + 1;
  }

  /** A subagent's budget: its own step limit, and this budget's limits over everything it spends. */
  child(maxSteps: number): Budget {
    return new Budget({ maxSteps, maxTokens: Number.POSITIVE_INFINITY }, this.#costOf, this);
  }

  /** Model calls counted so far: this agent's and its subagents'. */
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
    return this.#spentUsd === null ? null : roundMillionths(this.#spentUsd);
  }

  /** Checks whether one more model call is allowed here and above; counts it when it is. */
  beforeCall(): LimitHit | undefined {
    const own = this.#ownHitBeforeCall();
    if (own !== undefined) return own;
    const above = this.#parent?.beforeCall();
    if (above !== undefined) return above;
    this.#steps += 1;
    return undefined;
  }

  /**
   * Adds a reply's usage and cost (`step`: the top-level agent's step, for its price) here and
   * above; returns the token or cost limit hit when this reply reached it.
   */
  afterReply(reply: ModelReply, step: number = this.#steps): LimitHit | undefined {
    const above = this.#parent?.afterReply(reply, step);
    this.#usage = addUsage(this.#usage, reply.usage);
    const cost = this.#costOf(reply, step);
    this.#spentUsd = this.#spentUsd === null || cost === null ? null : this.#spentUsd + cost;
    if (above !== undefined) return above;
    const tokens = totalTokens(this.#usage);
    if (tokens > this.#limits.maxTokens)
      return this.withDepth({ limit: "max_tokens", used: tokens, max: this.#limits.maxTokens });
    return this.#costHit((spent, max) => spent > max);
  }

  #ownHitBeforeCall(): LimitHit | undefined {
    if (this.#steps >= this.#limits.maxSteps) {
      return this.withDepth({ limit: "max_steps", used: this.#steps, max: this.#limits.maxSteps });
    }
    const tokens = totalTokens(this.#usage);
    if (tokens >= this.#limits.maxTokens) {
      return this.withDepth({ limit: "max_tokens", used: tokens, max: this.#limits.maxTokens });
    }
    return this.#costHit((spent, max) => spent >= max);
  }

  /** The hit, marked with this budget's depth when it is a subagent's. */
  withDepth(hit: LimitHit): LimitHit {
    return this.depth === 0 ? hit : { ...hit, depth: this.depth };
  }

  /** The cost limit, when set and `isHit(spent, max)`; a reply of unknown cost counts as reaching it. */
  #costHit(isHit: (spent: number, max: number) => boolean): LimitHit | undefined {
    const max = this.#limits.maxCostUsd;
    if (max === undefined) return undefined;
    if (this.#spentUsd === null)
      return this.withDepth({ limit: "max_cost", used: Number.NaN, max });
    // Compared to the nano-dollar, finer than it is reported: a total rounded down to the cap
    // would let a run spend a little past it.
    const isOver = isHit(Math.round(this.#spentUsd * 1e9) / 1e9, max);
    return isOver
      ? this.withDepth({ limit: "max_cost", used: roundMillionths(this.#spentUsd), max })
      : undefined;
  }
}

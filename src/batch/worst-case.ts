import type { Price } from "../model/pricing.js";
import type { Limits } from "../task/schema.js";

/** The limits that bound a run's spend. */
export type SpendLimits = Pick<
  Limits,
  "maxSteps" | "maxTokens" | "maxOutputTokens" | "maxContextTokens" | "maxCostUsd"
>;

/** The limit that gives a run's worst case (the smallest of the bounds below). */
export type WorstCaseBound = "max_cost_usd" | "max_tokens" | "max_steps";

/**
 * The most one run can spend under its limits: its tokens, and their cost in USD at the model's
 * price (null when the model has no price: unknown, never $0), and the limit that set the cost.
 */
export type WorstCase = { tokens: number; usd: number | null; boundBy: WorstCaseBound };

/**
 * One run's worst case, from its limits alone (README, "Forecast", says the same in words):
 *
 * - One model call counts at most `R = context.max_tokens + max_output_tokens` tokens: agent-run
 *   keeps each request under `context.max_tokens` (by its estimate) and the API stops a reply at
 *   `max_output_tokens`.
 * - Tokens: no call starts once the run's total reached `max_tokens`, so the total is at most
 *   `max_tokens + R` (the reply that crosses it counts whole); and at most `max_steps × R`
 *   (subagents' calls count against both). `T` is the smaller.
 * - Of those, at most `O = min(max_steps × max_output_tokens, T)` are output tokens.
 * - USD: the `O` output tokens at the dearer of the output price and the dearest other price
 *   (input, cache write, cache read), the other `T - O` at the dearest other price. Any real mix
 *   of token kinds within those counts costs no more.
 * - With `max_cost_usd` set: no call starts once the run's cost reached it, so it spends at most
 *   `max_cost_usd` plus the cost of one call of `R` tokens, priced as above; the worst case is the
 *   smaller of this and the token bound.
 */
export function worstCase(limits: SpendLimits, price: Price | undefined): WorstCase {
  const perCall = limits.maxContextTokens + limits.maxOutputTokens;
  const byTokens = limits.maxTokens + perCall;
  const bySteps = limits.maxSteps * perCall;
  const tokens = Math.min(byTokens, bySteps);
  const tokenBound: WorstCaseBound = bySteps < byTokens ? "max_steps" : "max_tokens";
  if (price === undefined) return { tokens, usd: null, boundBy: tokenBound };
  const outputTokens = Math.min(limits.maxSteps * limits.maxOutputTokens, tokens);
  const tokenUsd = mostCostOf(tokens, outputTokens, price);
  if (limits.maxCostUsd === undefined) return { tokens, usd: tokenUsd, boundBy: tokenBound };
  const capUsd = limits.maxCostUsd + mostCostOf(perCall, limits.maxOutputTokens, price);
  return capUsd < tokenUsd
    ? { tokens, usd: capUsd, boundBy: "max_cost_usd" }
    : { tokens, usd: tokenUsd, boundBy: tokenBound };
}

/** The most `tokens` tokens can cost in USD when at most `outputTokens` of them are output. */
function mostCostOf(tokens: number, outputTokens: number, price: Price): number {
  const dearestOther = Math.max(price.input, price.cacheWrite, price.cacheRead);
  const dearestOutput = Math.max(price.output, dearestOther);
  return (outputTokens * dearestOutput + (tokens - outputTokens) * dearestOther) / 1_000_000;
}

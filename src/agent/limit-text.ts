/* Small text helpers of the loop: why a limit stopped a run, and a stable key for a tool call. */
import type { LimitHit } from "./budget.js";

/** Why a limit stopped the run, in words that name the setting to change. */
export function describeLimit(hit: LimitHit): string {
  switch (hit.limit) {
    case "loop":
      return `loop: the same tool call came ${hit.used} times in a row (limits.max_repeated_calls ${hit.max})`;
    case "max_cost":
      return `max_cost reached: $${Number.isNaN(hit.used) ? "?" : hit.used} of $${hit.max} (limits.max_cost_usd)`;
    case "budget":
      return `the batch budget is spent: ${hit.used} of ${hit.max} (--budget-usd or --budget-tokens)`;
    default:
      return `${hit.limit} reached: ${hit.used} of ${hit.max}`;
  }
}

/** JSON with object keys sorted, so equal inputs give equal text. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/* Small text helpers of the loop: why a limit stopped a run, and a stable key for a tool call. */
import { formatCount, roundMillionths } from "../format.js";
import type { LimitHit } from "./events.js";

/**
 * Why a limit stopped the run: the figures with their units, then the setting to change, e.g.
 * `max_cost reached ($0.603 of $0.50); raise limits.max_cost_usd or --max-cost`.
 */
export function describeLimit(hit: LimitHit): string {
  switch (hit.limit) {
    case "max_steps":
      // A subagent's budget has its own step limit, and no other.
      return (hit.depth ?? 0) > 0
        ? `the subagent's step limit was reached ${limitFigures(hit)}; raise subagents.max_steps, or the task call's max_steps`
        : `max_steps reached ${limitFigures(hit)}; raise limits.max_steps or --max-steps`;
    case "max_tokens":
      return `max_tokens reached ${limitFigures(hit)}; raise limits.max_tokens or --max-tokens`;
    case "max_cost":
      return Number.isNaN(hit.used)
        ? `max_cost reached: a reply's price is unknown, so spending against the ${usd(hit.max, decimalsOf(hit.max))} limit cannot be counted; add the model's price with --prices FILE, or drop limits.max_cost_usd`
        : `max_cost reached ${limitFigures(hit)}; raise limits.max_cost_usd or --max-cost`;
    case "timeout":
      return `timeout reached ${limitFigures(hit)}; raise limits.timeout or --timeout`;
    case "budget":
      return `the batch budget is spent ${limitFigures(hit)}; raise ${hit.unit === "usd" ? "--budget-usd" : "--budget-tokens"}`;
    case "loop":
      return `loop: the same tool call came ${formatCount(hit.used)} times in a row ${limitFigures(hit)}; change the task's prompt, or raise limits.max_repeated_calls`;
    default:
      return assertNever(hit.limit);
  }
}

/**
 * `(used of max)` with units and thousands separators: `(12,345 of 10,000 tokens)`,
 * `($0.603 of $0.50)`, `(2.0 s of 2.0 s)`. The used figure is never shown below the limit.
 */
export function limitFigures(hit: LimitHit): string {
  switch (hit.limit) {
    case "max_steps":
      return `(${formatCount(hit.used)} of ${formatCount(hit.max)} steps)`;
    case "max_tokens":
      return `(${formatCount(hit.used)} of ${formatCount(hit.max)} tokens)`;
    case "max_cost":
      return usdFigures(hit.used, hit.max);
    case "timeout":
      return `(${seconds(hit.used)} of ${seconds(hit.max)})`;
    case "budget":
      return hit.unit === "usd"
        ? usdFigures(hit.used, hit.max)
        : `(${formatCount(hit.used)} of ${formatCount(hit.max)} tokens)`;
    case "loop":
      return `(limits.max_repeated_calls ${formatCount(hit.max)})`;
    default:
      return assertNever(hit.limit);
  }
}

/** `($0.603 of $0.50)`: the spend to a tenth of a cent (or the cap's precision), never shown below the cap. */
function usdFigures(used: number, max: number): string {
  if (Number.isNaN(used)) return `(an unknown price, of ${usd(max, decimalsOf(max))})`;
  const maxDecimals = decimalsOf(max);
  const decimals = Math.max(3, maxDecimals);
  const scale = 10 ** decimals;
  const rounded = Math.round(used * scale) / scale;
  // Rounding a spend just over the cap down would print it below the cap.
  const shown = rounded < max ? Math.ceil(used * scale) / scale : rounded;
  return `(${usd(shown, Math.max(maxDecimals, decimalsOf(shown)))} of ${usd(max, maxDecimals)})`;
}

/** The decimals a USD figure needs to be shown exactly: at least 2 (cents), at most 6. */
function decimalsOf(value: number): number {
  const fraction = String(roundMillionths(value)).split(".")[1] ?? "";
  return Math.min(6, Math.max(2, fraction.length));
}

/** `$1,234.50`. */
function usd(value: number, decimals: number): string {
  const [whole = "0", fraction = ""] = value.toFixed(decimals).split(".");
  return `$${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${fraction === "" ? "" : `.${fraction}`}`;
}

/** `2.0 s`, `3,600.0 s`: milliseconds to a tenth of a second. */
function seconds(ms: number): string {
  const [whole = "0", tenth = "0"] = (Math.round(ms / 100) / 10).toFixed(1).split(".");
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${tenth} s`;
}

function assertNever(value: never): never {
  throw new Error(`unexpected limit: ${String(value)}`);
}

// The page's figures, formatted as agent-run's tables format them: these are src/format.ts's
// formatDuration, formatCost and formatCount, repeated because the page cannot import Node
// modules (test/view/client-format.test.ts checks that the two agree).

/** `850ms`, `2s`, `3.2s`, `5m`, `4m05s`. */
export function formatDuration(ms) {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return ms % 1_000 === 0 ? `${ms / 1_000}s` : `${(ms / 1_000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1_000);
  return seconds === 0 ? `${minutes}m` : `${minutes}m${String(seconds).padStart(2, "0")}s`;
}

/** `$0.0123`, or `-` when the price is unknown. */
export function formatCost(usd) {
  if (usd === null) return "-";
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/** `12,345` (at most three decimals). */
export function formatCount(value) {
  if (!Number.isFinite(value) || Math.abs(value) >= 1e21) return value.toLocaleString("en-US");
  const rounded = Math.round(Math.abs(value) * 1_000) / 1_000;
  const [whole = "0", fraction] = rounded
    .toFixed(3)
    .replace(/\.?0+$/, "")
    .split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const sign = value < 0 || Object.is(value, -0) ? "-" : "";
  return `${sign}${grouped}${fraction === undefined ? "" : `.${fraction}`}`;
}

/** A signed change: `+12`, `-3`, `0`. */
export function formatDelta(value, format) {
  if (value === null) return "";
  if (value === 0) return "±0";
  return value > 0 ? `+${format(value)}` : `-${format(Math.abs(value))}`;
}

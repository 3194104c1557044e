/** Human-readable figures: durations, counts and costs, for every message, log line and table. */

/** `850ms`, `2s`, `3.2s`, `5m`, `4m05s`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return ms % 1_000 === 0 ? `${ms / 1_000}s` : `${(ms / 1_000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1_000);
  return seconds === 0 ? `${minutes}m` : `${minutes}m${String(seconds).padStart(2, "0")}s`;
}

/** `1 GiB`, `64 MiB`, `1.5 GiB`, `512 KiB`, `100 bytes`: sizes as the docs and messages show them. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ["TiB", 1024 ** 4],
    ["GiB", 1024 ** 3],
    ["MiB", 1024 ** 2],
    ["KiB", 1024],
  ] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(2))} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** `$0.0123`, or `-` when the price is unknown. */
export function formatCost(usd: number | null): string {
  if (usd === null) return "-";
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/**
 * `formatCost`, rounded up instead of to the nearest: for an upper bound, which must never show
 * less than it is (`$4.7201` for 4.72001).
 */
export function formatCostCeiling(usd: number): string {
  const decimals = usd >= 1 ? 2 : 4;
  const scaled = Number((usd * 10 ** decimals).toPrecision(12));
  return `$${(Math.ceil(scaled) / 10 ** decimals).toFixed(decimals)}`;
}

/**
 * `12,345` (at most three decimals), as `toLocaleString("en-US")` writes it, without building an
 * `Intl.NumberFormat`, which costs milliseconds the first time.
 */
export function formatCount(value: number): string {
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

/** C0 and C1 controls and DEL: a terminal would act on them (colours, cursor moves, bells). */
const CONTROL = /\p{Cc}/gu;

/** `text` with each control character shown as `\xNN`, so printing it only ever shows text. */
export function showControls(text: string): string {
  return text.replace(CONTROL, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** One line, at most `max` characters, with an ellipsis when cut; controls shown as `\xNN`. */
export function oneLine(text: string, max: number): string {
  const flat = showControls(text.replace(/\s+/g, " ").trim());
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** Most characters of the model's (or an API's) own text quoted back in a message. */
export const MAX_QUOTE_CHARS = 2_000;

/**
 * `text` when short, else its first `max` characters and `… (N more chars)`: for messages that
 * quote what the model or an API sent, which may be megabytes.
 */
export function clip(text: string, max: number = MAX_QUOTE_CHARS): string {
  if (text.length <= max) return text;
  // One fewer rather than half of a surrogate pair (an emoji).
  const code = text.charCodeAt(max - 1);
  const head = text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
  return `${head}… (${text.length - head.length} more chars)`;
}

/** To the millionth: USD to the micro-dollar and rates as the outputs write them, so float sums print and compare cleanly. */
export function roundMillionths(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

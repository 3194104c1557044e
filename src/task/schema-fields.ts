import { z } from "zod";
import { DEFAULT_TOOL_NAMES, TOOL_NAMES, type ToolName } from "../tools/tool-names.js";
import { decimalAtMostPattern } from "./decimal-pattern.js";
import { describeValue } from "./describe-value.js";

const DURATION_PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/;
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** Parses `90s`, `10m`, `1.5h`, `500ms`, or a bare number of seconds; null when malformed. */
export function parseDuration(value: string | number): number | null {
  const ms = writtenMs(value);
  return ms === null ? null : positiveMs(ms);
}

/** The duration as written, in milliseconds before rounding; null when malformed. */
function writtenMs(value: string | number): number | null {
  if (typeof value === "number") return value * 1_000;
  const match = DURATION_PATTERN.exec(value.trim());
  if (match === null) return null;
  const [, amount, unit] = match;
  if (unit === undefined || !isDurationUnit(unit)) return null;
  return Number(amount) * UNIT_MS[unit];
}

function positiveMs(ms: number): number | null {
  const rounded = Math.round(ms);
  return Number.isFinite(rounded) && rounded > 0 ? rounded : null;
}

function isDurationUnit(unit: string): unit is keyof typeof UNIT_MS {
  return Object.hasOwn(UNIT_MS, unit);
}

function durationMessage(issue: { input?: unknown }): string {
  return `expected a duration such as "90s", "10m" or "1h" (or a number of seconds), got ${describeValue(issue.input)}`;
}

function positiveIntMessage(issue: { input?: unknown }): string {
  return `expected a positive integer, got ${describeValue(issue.input)}`;
}

/** Durations past this are refused: a week is longer than any CI job runs. */
const MAX_DURATION_MS = 7 * 24 * 3_600_000;

/**
 * The JSON Schema's form of a duration string: the runner's shape, not all zeros, and at most
 * `MAX_DURATION_MS` in its own unit (604800000ms, 604800s, 10080m, 168h). It cannot see rounding:
 * "0.1ms" (under 1 ms) passes it and the runner refuses it.
 */
const DURATION_SCHEMA_PATTERN = `^(?=[\\d.]*[1-9])(?:${Object.entries(UNIT_MS)
  .map(([unit, ms]) => `${decimalAtMostPattern(MAX_DURATION_MS / ms)}\\s*${unit}`)
  .join("|")})$`;

/** An optional duration field (`90s`, `10m`, or seconds), shared by limits, bash and run checks. */
export function duration(description: string) {
  return z
    .union(
      [
        z
          .string()
          .regex(DURATION_PATTERN, { error: durationMessage })
          .meta({ pattern: DURATION_SCHEMA_PATTERN }),
        z
          .number({ error: durationMessage })
          .positive({ error: durationMessage })
          .meta({ maximum: MAX_DURATION_MS / 1_000 }),
      ],
      { error: durationMessage },
    )
    .check((ctx) => {
      // The bound is on the value as written (not rounded), as the JSON Schema states it.
      const ms = ctx.issues.length === 0 ? writtenMs(ctx.value) : undefined;
      if (ms !== undefined && ms !== null && ms > MAX_DURATION_MS) {
        ctx.issues.push({
          code: "custom",
          input: ctx.value,
          message: `expected at most 7 days, got ${describeValue(ctx.value)}; a timeout this long is almost certainly a mistake`,
        });
      }
      if (ctx.issues.length === 0 && parseDuration(ctx.value) === null) {
        ctx.issues.push({
          code: "custom",
          input: ctx.value,
          message: durationMessage({ input: ctx.value }),
        });
      }
    })
    .optional()
    .describe(description);
}

/**
 * A string with a character other than white space, trimmed. `.trim()` is a transform JSON Schema
 * cannot state, so the pattern says it: JavaScript's `\s` is the set `trim` removes.
 */
export function nonBlankString(message: string) {
  return z.string().trim().min(1, message).meta({ pattern: "\\S" });
}

/** An optional positive integer field, with one message for every way it can be wrong. */
export function positiveInt(description: string, max?: number) {
  const number = z
    .number({ error: positiveIntMessage })
    .int({ error: positiveIntMessage, abort: true })
    .positive({ error: positiveIntMessage, abort: true });
  const bounded =
    max === undefined
      ? number
      : number.max(max, {
          error: (issue) =>
            `expected at most ${max.toLocaleString("en-US")}, got ${describeValue(issue.input)}; a limit this high is almost certainly a mistake`,
        });
  return bounded.optional().describe(description);
}

/** Most trials of one task (`--trials`, `trials:`): enough for pass@k, few enough to catch a typo. */
export const MAX_TRIALS = 100;

/** A task's `trials:`: how many times the batch runs it, at most `MAX_TRIALS`. */
export function trialsField() {
  return positiveInt(
    `How many times to run the task, each trial from a fresh copy of the workspace into its own run folder (OUT/<task>/trial-<n>/); the report gives its pass rate, and the batch's pass@k and pass^k. --trials overrides it. Default: 1; at most ${MAX_TRIALS}.`,
    MAX_TRIALS,
  );
}

function countMessage(issue: { input?: unknown }): string {
  return `expected a whole number, 0 or more, got ${describeValue(issue.input)}`;
}

/** An optional count that may be 0 (`changed_files.max: 0`: nothing may change). */
export function nonNegativeInt(description: string) {
  return z
    .number({ error: countMessage })
    .int({ error: countMessage, abort: true })
    .nonnegative({ error: countMessage, abort: true })
    .optional()
    .describe(description);
}

/** An optional positive amount of US dollars (`0.5`, `2`), for spending caps. */
export function positiveUsd(description: string) {
  const message = (issue: { input?: unknown }) =>
    `expected a positive amount of US dollars such as 0.5 or 2, got ${JSON.stringify(issue.input)}`;
  return z
    .number({ error: message })
    .positive({ error: message })
    .max(1_000_000, { error: message })
    .optional()
    .describe(description);
}

/** The schema already rejected bad durations; a null here is a bug, not a user mistake. */
export function durationMs(value: string | number | undefined, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  const ms = parseDuration(value);
  if (ms === null)
    throw new Error(`duration ${JSON.stringify(value)} passed the schema but does not parse`);
  return ms;
}

// Spelled out rather than with the `i` flag: JSON Schema patterns have no flags.
const SIZE_PATTERN = /^(\d+(?:\.\d+)?)\s*(?:([kKmMgGtT])(?:[iI]?[bB])?|[bB])?$/;
const UNIT_BYTES = { k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 } as const;

/** Smallest and largest sizes a task may set: less than a MiB is a unit forgotten, more than a TiB a typo. */
const MIN_SIZE_BYTES = 1024 ** 2;
const MAX_SIZE_BYTES = 1024 ** 4;

/**
 * Parses `1GiB`, `512MiB`, `64M`, `2g`, `1.5 GiB` (units are binary, like Docker's: 1M = 1MB =
 * 1MiB) or a bare number of bytes; null when malformed.
 */
export function parseSize(value: string | number): number | null {
  if (typeof value === "number") return Number.isSafeInteger(value) && value > 0 ? value : null;
  const match = SIZE_PATTERN.exec(value);
  if (match === null) return null;
  const [, amount, unit] = match;
  const scale = unit === undefined ? 1 : UNIT_BYTES[unit.toLowerCase() as keyof typeof UNIT_BYTES];
  const bytes = Math.round(Number(amount) * scale);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : null;
}

function sizeMessage(issue: { input?: unknown }): string {
  return `expected a size such as "1GiB", "512MiB" or "64M" (or a number of bytes), got ${describeValue(issue.input)}`;
}

/** An optional size field (`1GiB`, `64M`, or bytes), between 1 MiB and 1 TiB. */
export function byteSize(description: string) {
  return z
    .union(
      [
        z.string().regex(SIZE_PATTERN, { error: sizeMessage }),
        // The string form's bounds depend on its unit; the JSON Schema states the bare number's.
        z.number().meta({ type: "integer", minimum: MIN_SIZE_BYTES, maximum: MAX_SIZE_BYTES }),
      ],
      { error: sizeMessage },
    )
    .check((ctx) => {
      if (ctx.issues.length > 0) return;
      const bytes = parseSize(ctx.value);
      const message =
        bytes === null
          ? sizeMessage({ input: ctx.value })
          : bytes < MIN_SIZE_BYTES
            ? `expected at least 1MiB, got ${describeValue(ctx.value)}${typeof ctx.value === "number" ? ` (a bare number is bytes; write "${ctx.value}MiB" for mebibytes)` : ""}`
            : bytes > MAX_SIZE_BYTES
              ? `expected at most 1TiB, got ${describeValue(ctx.value)}; a size this large is almost certainly a mistake`
              : undefined;
      if (message !== undefined) ctx.issues.push({ code: "custom", input: ctx.value, message });
    })
    .optional()
    .describe(description);
}

/** The schema already rejected bad sizes; a null here is a bug, not a user mistake. */
export function sizeBytes(value: string | number | undefined, fallbackBytes: number): number {
  if (value === undefined) return fallbackBytes;
  const bytes = parseSize(value);
  if (bytes === null)
    throw new Error(`size ${JSON.stringify(value)} passed the schema but does not parse`);
  return bytes;
}

/** `tools:`: at least one tool, each once (the JSON Schema says so too: minItems, uniqueItems). */
export function toolList() {
  return z
    .array(z.enum(TOOL_NAMES))
    .min(1, {
      error: `lists no tool, so the agent could not act; name at least one of ${TOOL_NAMES.join(", ")}, or leave tools out to offer ${DEFAULT_TOOL_NAMES.join(", ")}`,
    })
    .check(refuseRepeatedTools)
    .meta({ uniqueItems: true });
}

/** A tool named twice is a slip (a copy-paste, or a tool meant to be another): refused at the repeat. */
function refuseRepeatedTools(ctx: z.core.ParsePayload<ToolName[]>): void {
  ctx.value.forEach((tool, index) => {
    const first = ctx.value.indexOf(tool);
    if (first === index) return;
    ctx.issues.push({
      code: "custom",
      input: tool,
      path: [index],
      message: `"${tool}" is listed twice (also at tools[${first}]); remove this one`,
    });
  });
}

/** Names a child process accepts; anything else would be silently dropped or mangled. */
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An optional map of environment variables to string values (`bash.env`, an MCP server's `env`). */
export function envMap(description: string) {
  return z
    .record(
      z.string().regex(ENV_NAME_PATTERN, {
        error: (issue) =>
          `expected an environment variable name (letters, digits and '_', not starting with a digit), got ${describeValue(issue.input)}`,
      }),
      z.string(),
    )
    .optional()
    .describe(description);
}

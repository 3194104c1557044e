import type { z } from "zod";
import { messageOf, TranscriptError } from "../errors.js";
import { readWholeFile } from "../fs/read-head.js";
import { nestsDeeperThan } from "../json-depth.js";
import {
  ApiErrorLineSchema,
  AssistantLineSchema,
  CheckLineSchema,
  CompactLineSchema,
  InitLineSchema,
  LimitLineSchema,
  ResultLineSchema,
  RetryLineSchema,
  TRANSCRIPT_VERSION,
  type TranscriptLine,
  TranscriptLineSchema,
  UserLineSchema,
} from "./line-schemas.js";
import { migrateV1Line } from "./migrate-v1.js";

/**
 * Reads a `transcript.jsonl` back as validated lines. A transcript without its closing `result`
 * line (a killed run) is returned as it is; check `isComplete`. Throws only `TranscriptError`,
 * naming the file and line (`run/transcript.jsonl:7: not valid JSON …`).
 */
export async function readTranscript(
  path: string,
  options: ReadOptions = {},
): Promise<TranscriptLine[]> {
  return parseTranscript(await readTranscriptText(path), path, options);
}

/**
 * Most bytes of a transcript read back whole (replay, resume, report, export): about the longest
 * string JavaScript holds. The viewer reads less (its own bound), and says so.
 */
export const MAX_TRANSCRIPT_BYTES = 500 * 1024 * 1024;

/**
 * Deepest a transcript line nests: a tool call's input is cut at 65 levels and a schema at 64,
 * under a few levels of the line's own; a forged deeper line would overflow the recursive code
 * that shows or exports it.
 */
const MAX_LINE_DEPTH = 128;

/**
 * A transcript's text, read as hostile input: no symbolic link followed, a regular file only (a
 * FIFO would hang), at most `MAX_TRANSCRIPT_BYTES`. Throws a `TranscriptError` naming the file.
 */
export async function readTranscriptText(path: string): Promise<string> {
  let bytes: Buffer | undefined;
  try {
    bytes = await readWholeFile(path, MAX_TRANSCRIPT_BYTES);
  } catch (error) {
    throw new TranscriptError(`cannot read the transcript ${path}: ${messageOf(error)}`, error);
  }
  if (bytes === undefined) {
    throw new TranscriptError(`cannot read the transcript ${path}: no such file`);
  }
  return bytes.toString("utf8");
}

export type ReadOptions = {
  /** Drop a partial last line (a run killed mid-write) instead of refusing the file; for resume. */
  isPartialLastLineDropped?: boolean;
};

/** Parses a transcript's text; `path` only names the file in errors. */
export function parseTranscript(
  text: string,
  path: string,
  options: ReadOptions = {},
): TranscriptLine[] {
  const rows = text.split("\n");
  if (rows.at(-1) === "") rows.pop();
  else if (options.isPartialLastLineDropped === true && rows.length > 1) rows.pop();
  const fail = (index: number, message: string): never => {
    throw new TranscriptError(`${path}:${index + 1}: ${message}`);
  };
  const parseJson = (index: number): unknown => {
    let value: unknown;
    try {
      value = JSON.parse(rows[index] ?? "");
    } catch (error) {
      const isPartialLast = index === rows.length - 1 && !text.endsWith("\n");
      return fail(
        index,
        isPartialLast
          ? "not valid JSON (a run killed mid-write leaves a partial last line)"
          : `not valid JSON: ${messageOf(error)}`,
      );
    }
    if (nestsDeeperThan(value, MAX_LINE_DEPTH)) {
      fail(
        index,
        `nests deeper than ${MAX_LINE_DEPTH} levels, which no line agent-run writes does`,
      );
    }
    return value;
  };

  const first = rows.length === 0 ? undefined : parseJson(0);
  if (kindOf(first) !== "system/init") {
    fail(
      0,
      `the first line must be the system/init line${rows.length === 0 ? " (empty file)" : ""}`,
    );
  }
  const version = checkVersion(first, (message) => fail(0, message));

  const lines: TranscriptLine[] = [];
  for (let index = 0; index < rows.length; index += 1) {
    if (lines.at(-1)?.type === "result") fail(index, "a line after the result line");
    const json = migrateLine(index === 0 ? first : parseJson(index), version, first);
    const parsed = TranscriptLineSchema.safeParse(json);
    if (!parsed.success) fail(index, describeMismatch(json));
    else lines.push(parsed.data);
  }
  return lines;
}

/** Whether the run got to write its closing `result` line (a killed run did not). */
export function isComplete(lines: readonly TranscriptLine[]): boolean {
  return lines.at(-1)?.type === "result";
}

function checkVersion(first: unknown, fail: (message: string) => never): number {
  const version = field(first, "schema_version");
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
    return fail(`schema_version must be a positive integer, not ${JSON.stringify(version)}`);
  }
  if (version > TRANSCRIPT_VERSION) {
    return fail(
      `schema_version ${version} is newer than this agent-run understands (${TRANSCRIPT_VERSION}); upgrade agent-run`,
    );
  }
  return version;
}

/**
 * Brings a line written by format `fromVersion` up to `TRANSCRIPT_VERSION`, before validation:
 * one step per version, oldest first. `init` is the transcript's first line, as recorded.
 */
function migrateLine(line: unknown, fromVersion: number, init: unknown): unknown {
  let migrated = line;
  if (fromVersion < 2) migrated = migrateV1Line(migrated, init);
  return migrated;
}

/** The schema for each kind of line (`type`, or `type/subtype` for `system` lines). */
const SCHEMA_BY_KIND: Record<string, z.ZodType> = {
  "system/init": InitLineSchema,
  "system/api_retry": RetryLineSchema,
  "system/api_error": ApiErrorLineSchema,
  "system/compact_boundary": CompactLineSchema,
  assistant: AssistantLineSchema,
  user: UserLineSchema,
  limit_reached: LimitLineSchema,
  check: CheckLineSchema,
  result: ResultLineSchema,
};

function kindOf(json: unknown): string | undefined {
  const type = field(json, "type");
  if (typeof type !== "string") return undefined;
  return type === "system" ? `system/${String(field(json, "subtype"))}` : type;
}

/** One field of a parsed JSON object; undefined for anything else (arrays, null, strings...). */
function field(json: unknown, name: string): unknown {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  return Object.hasOwn(json, name) ? Reflect.get(json, name) : undefined;
}

/** Says why a line matches no line schema: by its own kind's schema, which is more precise. */
function describeMismatch(json: unknown): string {
  const kind = kindOf(json);
  if (kind === undefined) return 'expected a JSON object with a string "type"';
  const schema = SCHEMA_BY_KIND[kind];
  if (schema === undefined) return `unknown line type "${kind}"`;
  const issue = schema.safeParse(json).error?.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? "" : `${issue.path.join(".")}: `;
  return `${kind} line: ${where}${issue?.message ?? "invalid"}`;
}

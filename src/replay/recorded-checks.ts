import { z } from "zod";
import { JSON_POINTER } from "../checks/json-pointer.js";
import type { Check } from "../checks/types.js";
import { TranscriptError } from "../errors.js";

const Base = { name: z.string(), line: z.number() };
const Globs = z.array(z.string()).nullable();

/** A resolved check as the init line records it (`checkJson`), validated on the way back in. */
const RecordedCheckSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("run"), ...Base, command: z.string(), timeout_ms: z.number() }),
  z.object({ kind: z.literal("file_exists"), ...Base, path: z.string() }),
  z.object({ kind: z.literal("file_absent"), ...Base, path: z.string() }),
  z.object({ kind: z.literal("file_contains"), ...Base, path: z.string(), text: z.string() }),
  z.object({ kind: z.literal("file_matches"), ...Base, path: z.string(), pattern: z.string() }),
  z.object({
    kind: z.literal("changed_files"),
    ...Base,
    only: Globs,
    must: Globs,
    max: z.number().nullable(),
  }),
  z.object({ kind: z.literal("final_text_matches"), ...Base, pattern: z.string() }),
  z.object({ kind: z.literal("plan_complete"), ...Base }),
  z.object({
    kind: z.literal("output_equals"),
    ...Base,
    pointer: z.string().regex(JSON_POINTER),
    value: z.json(),
  }),
]);

/** Parses the recorded checks of the transcript at `path`; throws when they do not match (another version's). */
export function recordedChecks(value: unknown, path: string): Check[] {
  const parsed = z.array(RecordedCheckSchema).safeParse(value ?? []);
  if (!parsed.success) {
    throw new TranscriptError(
      `${path}:1: task.checks: the recorded checks are not in a shape this agent-run reads; give the task file with --task`,
    );
  }
  return parsed.data.map((check): Check => {
    switch (check.kind) {
      case "run":
        return {
          kind: "run",
          name: check.name,
          line: check.line,
          command: check.command,
          timeoutMs: check.timeout_ms,
        };
      case "changed_files":
        return {
          ...check,
          only: check.only ?? undefined,
          must: check.must ?? undefined,
          max: check.max ?? undefined,
        };
      default:
        return check;
    }
  });
}

import { join } from "node:path";
import { z } from "zod";
import { messageOf } from "../errors.js";
import { readHead } from "../fs/read-head.js";
import type { PriceTable } from "../model/pricing.js";
import { TRANSCRIPT_FILE } from "../run/run-folder.js";
import type { TranscriptLine } from "../transcript/line-schemas.js";
import { parseTranscript } from "../transcript/reader.js";
import { buildAgents } from "./timeline.js";
import type { TextClipper } from "./view-bounds.js";
import type { ViewBounds, ViewTimeline } from "./view-data.js";

/** The init line's fields the viewer reads beside the reader's schema (loose there). */
const InitExtrasSchema = z.object({
  task: z.object({ provider: z.object({ name: z.string() }).optional().catch(undefined) }),
  origin: z.object({ kind: z.string(), steps: z.number() }).optional().catch(undefined),
});

/** A run's timeline and origin, or why its transcript cannot be shown. */
export type TimelineRead =
  | { timeline: ViewTimeline; origin: { kind: string; steps: number } | null }
  | { problem: string };

/**
 * Reads a run folder's transcript for the page: at most `maxTranscriptBytes` and
 * `maxTranscriptLines` of it (a partial last line dropped), validated by the transcript reader.
 * A transcript the reader refuses is a problem to show, not an error: the page still shows the
 * run's summary, changes and checks.
 */
export async function readTimeline(
  folder: string,
  context: { clip: TextClipper; prices: PriceTable; bounds: ViewBounds },
): Promise<TimelineRead> {
  // Fixed names in the run folder, never a name a file says.
  const file = join(folder, TRANSCRIPT_FILE);
  const head = await readHead(file, context.bounds.maxTranscriptBytes);
  if (head === undefined) return { problem: "the run folder has no transcript.jsonl" };
  if ("problem" in head) return { problem: `transcript.jsonl: ${head.problem}` };
  const kept = firstLines(head.text, context.bounds.maxTranscriptLines);
  const isCut = head.isCut || kept.length < head.text.length;
  let lines: TranscriptLine[];
  try {
    lines = parseTranscript(kept, file, { isPartialLastLineDropped: true });
  } catch (error) {
    return { problem: messageOf(error) };
  }
  const [init] = lines;
  if (init?.type !== "system" || init.subtype !== "init") {
    return { problem: "transcript.jsonl: no init line" };
  }
  const extras = InitExtrasSchema.safeParse(init).data;
  const priced = { provider: extras?.task.provider?.name ?? "anthropic", model: init.model };
  const { agent, linesLeftOut } = buildAgents(lines, {
    clip: context.clip,
    prices: context.prices,
    priced,
    maxSubagentDepth: context.bounds.maxSubagentDepth,
  });
  const result = lines.find((line) => line.type === "result");
  const timeline: ViewTimeline = {
    prompt: context.clip(init.task.prompt),
    model: init.model,
    tools: init.tools,
    agent,
    finalText: result === undefined ? null : context.clip(result.result),
    errors: (result?.errors ?? []).map(context.clip),
    linesRead: lines.length,
    isCut,
    linesLeftOut,
  };
  return { timeline, origin: extras?.origin ?? null };
}

/** The text up to the end of its `max`-th line (all of it when it has fewer). */
function firstLines(text: string, max: number): string {
  let end = -1;
  for (let count = 0; count < max; count += 1) {
    end = text.indexOf("\n", end + 1);
    if (end === -1) return text;
  }
  return text.slice(0, end + 1);
}

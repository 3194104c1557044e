import { z } from "zod";
import type { DivergenceReport } from "./divergence.js";

/** The file a replay writes beside its `summary.json`. */
export const DIVERGENCE_FILE = "divergence.json";

const count = z.number().int().nonnegative();

/** `divergence.json`: where a replay's tool results first differed from the recording. */
export const DivergenceJsonSchema = z.object({
  compared_steps: count,
  divergent_steps: z.array(z.number().int().positive()),
  first_divergence: z
    .object({
      step: z.number().int().positive(),
      subagent: z.object({ tool_use_id: z.string(), step: z.number().int().positive() }).nullable(),
      tool_name: z.string(),
      recorded: z.string(),
      replayed: z.string(),
      diff: z.string(),
    })
    .nullable(),
});

/** `divergence.json`'s content, as the replay writes it and the viewer reads it back. */
export type DivergenceJson = z.infer<typeof DivergenceJsonSchema>;

/** A replay's divergence report in `divergence.json`'s shape. */
export function divergenceJson(report: DivergenceReport): DivergenceJson {
  const { first } = report;
  return {
    compared_steps: report.comparedSteps,
    divergent_steps: report.divergentSteps,
    first_divergence:
      first === undefined
        ? null
        : {
            step: first.step,
            subagent:
              first.subagent === undefined
                ? null
                : { tool_use_id: first.subagent.toolUseId, step: first.subagent.step },
            tool_name: first.toolName,
            recorded: first.recorded,
            replayed: first.replayed,
            diff: first.diff,
          },
  };
}

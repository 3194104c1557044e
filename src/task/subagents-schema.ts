import { z } from "zod";
import { positiveInt } from "./schema-fields.js";

/** The `task` tool's settings when the task's `subagents:` leaves them out. */
export const DEFAULT_SUBAGENTS = { maxSteps: 20, maxDepth: 1 } as const;

/** The most `subagents.max_steps` and `subagents.max_depth` may be. */
export const MAX_SUBAGENT_STEPS = 100_000;
export const MAX_SUBAGENT_DEPTH = 5;

/** `subagents:` in a task file: the settings of the task tool (it must be in `tools`). */
export const SubagentsSchema = z
  .object({
    max_steps: positiveInt(
      `A subagent's step limit (its model calls, its own subagents' included) when its task call asks for none, and the most a call may ask for. Default: ${DEFAULT_SUBAGENTS.maxSteps}; at most 100,000.`,
      MAX_SUBAGENT_STEPS,
    ),
    max_depth: positiveInt(
      `How deep subagents nest: at 1 a subagent cannot start subagents of its own; at 2 it can, and theirs cannot. Default: ${DEFAULT_SUBAGENTS.maxDepth}; at most 5.`,
      MAX_SUBAGENT_DEPTH,
    ),
  })
  .strict()
  .meta({ minProperties: 1 })
  .optional()
  .describe(
    "Settings of the task tool, which hands sub-tasks to subagents; list task in tools to offer it. A subagent's model calls, tokens and cost count against the task's limits. Default: the defaults of each field.",
  );

import { z } from "zod";
import { describeValue } from "./describe-value.js";

// `output_schema:` and `output_retries:`: the task asks for a final reply that is a JSON object
// valid against a schema (structured output), and bounds how often an invalid one is sent back.

/** Invalid final replies sent back to the model when the task sets no `output_retries`. */
export const DEFAULT_OUTPUT_RETRIES = 2;

/** The most `output_retries` may be: each retry is a model call that repeats the whole context. */
export const MAX_OUTPUT_RETRIES = 10;

/**
 * A task's structured output (`Task.output`; undefined when its final reply is free text): the
 * schema its final reply must be valid against, and how often an invalid one is sent back.
 */
export type TaskOutput = { schema: Record<string, unknown>; maxRetries: number };

const typeMessage = (issue: { input?: unknown }) =>
  issue.input === undefined
    ? 'required field is missing; the final reply is a JSON object: write "type: object"'
    : `expected "object" (the final reply is a JSON object), got ${describeValue(issue.input)}`;

const retriesMessage = (issue: { input?: unknown }) =>
  `expected a whole number from 0 to ${MAX_OUTPUT_RETRIES}, got ${describeValue(issue.input)}`;

/** The task file's fields for structured output (spread into `TaskFileSchema`). */
export const OUTPUT_FIELDS = {
  output_schema: z
    .looseObject({ type: z.literal("object", { error: typeMessage }) })
    .optional()
    .describe(
      "JSON Schema of the final reply, which must then be a JSON object valid against it (structured output): draft-07, or 2020-12 when its $schema names it; type: object. It must compile under Ajv's strict mode (unknown keywords are errors); format is not checked. The model is given it in the system prompt; an invalid reply is sent back with the problems (see output_retries). The object is written to the result line's structured_output, summary.json, output.json and the GitHub step outputs. Default: none (the final reply is free text).",
    ),
  output_retries: z
    .number({ error: retriesMessage })
    .int({ error: retriesMessage, abort: true })
    .min(0, { error: retriesMessage, abort: true })
    .max(MAX_OUTPUT_RETRIES, { error: retriesMessage })
    .optional()
    .describe(
      `How many times an invalid final reply is sent back to the model with its problems; past that the run ends with status invalid_output. Each retry is a model call (limits.max_steps counts it). Only with output_schema. Default: ${DEFAULT_OUTPUT_RETRIES}; at most ${MAX_OUTPUT_RETRIES}.`,
    ),
};

/** The JSON Schema's part of the rule that `resolveOutput` enforces: retries need a schema. */
export const OUTPUT_DEPENDENCIES = { output_retries: ["output_schema"] };

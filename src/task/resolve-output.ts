import type { TaskFileProblem } from "../errors.js";
import { compileOutputSchema } from "../tools/input-schema.js";
import { DEFAULT_OUTPUT_RETRIES, type TaskOutput } from "./output-schema.js";
import { checksOfKind } from "./resolve-checks.js";
import type { TaskFile } from "./schema.js";
import { schemaCompileProblem } from "./schema-compile-problem.js";
import { type Locator, problemAt } from "./yaml-locator.js";

/**
 * The task's structured output, and what the schema alone cannot see: an `output_schema` that
 * does not compile (compiled here, once), `output_retries` without a schema, and an
 * `output_equals` check on a task without one (it could never pass).
 */
export function resolveOutput(
  file: string,
  data: TaskFile,
  locator: Locator,
): { output: TaskOutput | undefined; problems: TaskFileProblem[] } {
  const problems: TaskFileProblem[] = [];
  const schema = data.output_schema;
  if (schema === undefined) {
    if (data.output_retries !== undefined) {
      const message = "bounds the retries of output_schema, which this task does not have; add one";
      problems.push(problemAt(file, locator, ["output_retries"], message, "key"));
    }
    for (const index of checksOfKind(data, "output_equals")) {
      const message =
        "checks the structured output, which only a task with output_schema has; add output_schema";
      problems.push(problemAt(file, locator, ["checks", index, "output_equals"], message, "value"));
    }
    return { output: undefined, problems };
  }
  const compiled = compileOutputSchema(schema);
  if (!compiled.ok) problems.push(schemaCompileProblem(file, locator, ["output_schema"], compiled));
  const maxRetries = data.output_retries ?? DEFAULT_OUTPUT_RETRIES;
  return { output: { schema, maxRetries }, problems };
}

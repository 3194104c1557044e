import type { TaskFileProblem } from "../errors.js";
import type { SchemaCompileError } from "../tools/input-schema.js";
import { formatPath, type Locator } from "./yaml-locator.js";

/**
 * A JSON Schema the task file gives at `at` (`output_schema`, a command tool's `input_schema`) that
 * does not compile: the problem points at the faulty keyword when the compiler's error names one
 * (`output_schema.properties.label.minLenght`), else at the schema.
 */
export function schemaCompileProblem(
  file: string,
  locator: Locator,
  at: readonly (string | number)[],
  error: SchemaCompileError,
): TaskFileProblem {
  const path = [...at, ...(error.path ?? [])];
  const place = error.path === undefined ? locator.value(at) : locator.key(path);
  return { file, ...place, path: formatPath(path), message: `does not compile: ${error.message}` };
}

import type { TaskFileProblem } from "../errors.js";
import { checkCommand } from "../tools/command-policy.js";
import type { CommandToolSpec } from "../tools/command-tool-spec.js";
import { compileInputSchema } from "../tools/input-schema.js";
import type { TaskFile } from "./schema.js";
import { schemaCompileProblem } from "./schema-compile-problem.js";
import { durationMs } from "./schema-fields.js";
import { type Locator, problemAt } from "./yaml-locator.js";

/**
 * The task's `command_tools:` as specs, each with its list item's line, and what the schema alone
 * cannot see: an input schema that does not compile (compiled here, once), and a command the
 * task's own `bash.allow` / `bash.deny` (or a built-in rule) would refuse at every call.
 */
export function resolveCommandTools(
  file: string,
  data: TaskFile,
  locator: Locator,
  bashTimeoutMs: number,
): { commandTools: CommandToolSpec[]; problems: TaskFileProblem[] } {
  const policy = { allow: data.bash?.allow ?? [], deny: data.bash?.deny ?? [] };
  const problems: TaskFileProblem[] = [];
  const commandTools = (data.command_tools ?? []).map((item, index): CommandToolSpec => {
    const compiled = compileInputSchema(item.input_schema);
    if (!compiled.ok) {
      const schemaAt = ["command_tools", index, "input_schema"];
      problems.push(schemaCompileProblem(file, locator, schemaAt, compiled));
    }
    const verdict = checkCommand(item.command, policy);
    if (!verdict.allowed) {
      const fix = verdict.rule.startsWith("agent-run's built-in rule")
        ? "change its command"
        : "change its command, or the pattern that refuses it";
      const message = `refused by ${verdict.rule}, so the tool could never run; ${fix}`;
      problems.push(
        problemAt(file, locator, ["command_tools", index, "command"], message, "value"),
      );
    }
    return {
      name: item.name,
      description: item.description,
      inputSchema: item.input_schema,
      command: item.command,
      timeoutMs: durationMs(item.timeout, bashTimeoutMs),
      line: locator.value(["command_tools", index]).line,
    };
  });
  return { commandTools, problems };
}

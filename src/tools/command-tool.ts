import type { CommandToolSpec } from "./command-tool-spec.js";
import type { Tool } from "./define-tool.js";
import { compileInputSchema, describeInputProblems } from "./input-schema.js";
import { resolveShellSettings, runShellCommand, type ShellOptions } from "./shell-command.js";

/**
 * A task's command tool: checks the model's input against the tool's JSON Schema, then runs the
 * tool's command as bash runs a command (policy, sandbox, timeout, output caps), with the input as
 * JSON on stdin. The input never becomes part of the command line, so no input can inject shell.
 * `options.timeoutMs` is replaced by the tool's own. Throws `ConfigError` when the sandbox it asks
 * for is not installed.
 */
export function createCommandTool(spec: CommandToolSpec, options: ShellOptions): Tool {
  const settings = resolveShellSettings({ ...options, timeoutMs: spec.timeoutMs });
  const compiled = compileInputSchema(spec.inputSchema);
  // Task files and transcripts are checked when read: a schema that does not compile here is a bug.
  if (!compiled.ok) {
    throw new Error(
      `command tool ${spec.name}: input_schema does not compile: ${compiled.message}`,
    );
  }
  const { validate } = compiled;
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    async execute(input, ctx) {
      if (!validate(input)) {
        return { content: describeInputProblems(spec.name, validate.errors ?? []), isError: true };
      }
      const call = {
        toolName: spec.name,
        command: spec.command,
        input: Buffer.from(JSON.stringify(input)),
      };
      return runShellCommand(call, ctx, settings);
    },
  };
}

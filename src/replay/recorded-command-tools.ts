import { z } from "zod";
import { type CommandToolSpec, commandToolNameProblem } from "../tools/command-tool-spec.js";
import { compileInputSchema } from "../tools/input-schema.js";

/** A command tool as the init line records it (`commandToolJson`), checked on the way back in. */
const RecordedCommandToolSchema = z.object({
  name: z.string().check((ctx) => {
    const message = commandToolNameProblem(ctx.value);
    if (message !== undefined) ctx.issues.push({ code: "custom", input: ctx.value, message });
  }),
  description: z.string(),
  input_schema: z.looseObject({ type: z.literal("object") }),
  command: z.string().regex(/\S/),
  timeout_ms: z.number().int().positive(),
  line: z.number().int().nonnegative(),
});

/**
 * The recorded command tools (`[]` for a transcript from before them), or why they cannot be used:
 * a transcript is edited as easily as a task file, and these run commands, so each is held to
 * the task file's rules (names, an input schema that compiles) before a replay offers it.
 */
export function parseRecordedCommandTools(
  value: unknown,
): { ok: true; tools: CommandToolSpec[] } | { ok: false; message: string } {
  const parsed = z.array(RecordedCommandToolSchema).safeParse(value ?? [], { jitless: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, message: `${issue?.path.join(".") ?? ""}: ${issue?.message ?? ""}` };
  }
  const tools = parsed.data;
  for (const [index, tool] of tools.entries()) {
    if (tools.findIndex((other) => other.name === tool.name) !== index) {
      return { ok: false, message: `${index}.name: "${tool.name}" names two command tools` };
    }
    const compiled = compileInputSchema(tool.input_schema);
    if (!compiled.ok) {
      return { ok: false, message: `${index}.input_schema: does not compile: ${compiled.message}` };
    }
  }
  return {
    ok: true,
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.input_schema,
      command: tool.command,
      timeoutMs: tool.timeout_ms,
      line: tool.line,
    })),
  };
}

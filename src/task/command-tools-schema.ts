import { z } from "zod";
import {
  COMMAND_TOOL_NAME_SCHEMA_PATTERN,
  commandToolNameProblem,
} from "../tools/command-tool-spec.js";
import { TOOL_NAMES } from "../tools/tool-names.js";
import { describeValue } from "./describe-value.js";
import { duration, nonBlankString } from "./schema-fields.js";

const NAME_DESCRIPTION =
  "The name the model calls the tool by: 1 to 64 letters, digits, '_' or '-' (the API's rule), neither a built-in tool's name nor starting with mcp__ (kept for MCP servers' tools); unique among the task's command tools. Required.";

const name = z
  .string()
  .check((ctx) => {
    const message = commandToolNameProblem(ctx.value);
    if (message !== undefined) ctx.issues.push({ code: "custom", input: ctx.value, message });
  })
  .meta({ pattern: COMMAND_TOOL_NAME_SCHEMA_PATTERN, not: { enum: [...TOOL_NAMES] } })
  .describe(NAME_DESCRIPTION);

const typeMessage = (issue: { input?: unknown }) =>
  issue.input === undefined
    ? 'required field is missing; a tool\'s input is a JSON object: write "type: object"'
    : `expected "object" (a tool's input is a JSON object), got ${describeValue(issue.input)}`;

const InputSchemaSchema = z
  .looseObject({ type: z.literal("object", { error: typeMessage }) })
  .describe(
    "JSON Schema (draft-07, or 2020-12 when its $schema names it) of the tool's input, sent to the model as the tool's input_schema; type: object. It must compile under Ajv's strict mode (unknown keywords are errors); format is not checked. The model's input is checked against it before the command runs. Required.",
  );

const CommandToolSchema = z
  .object({
    name,
    description: nonBlankString(
      "must not be empty; say what the tool does and what it returns",
    ).describe("What the tool does and returns, for the model. Required."),
    input_schema: InputSchemaSchema,
    command: nonBlankString(
      'must not be empty; write the command to run, e.g. "node tools/x.mjs"',
    ).describe(
      "Shell command run with bash in the workspace root, which reads the model's input as JSON on stdin (never interpolated into the command). Runs like a bash command: under the command policy (it must pass the task's bash.allow and bash.deny), the sandbox and the output caps. Required.",
    ),
    timeout: duration(
      'Limit for one call ("90s", "10m", … or a number of seconds); on expiry the command\'s process tree is killed. Default: the task\'s bash.timeout.',
    ),
  })
  .strict();

/** One item of `command_tools:` as written. */
export type CommandToolItem = z.infer<typeof CommandToolSchema>;

/** `command_tools:` in a task file: tools the task adds, each a command that reads its input on stdin. */
export const CommandToolsSchema = z
  .array(CommandToolSchema)
  .check(refuseRepeatedNames)
  .optional()
  .describe(
    "The task's own tools, each a command: the model calls one by name with JSON input that fits its input_schema, and its command runs with that input on stdin. Offered after the built-in tools, whatever tools lists. Default: none.",
  );

/** Two tools of one name: the API refuses the request; refused at the repeat. */
function refuseRepeatedNames(ctx: z.core.ParsePayload<CommandToolItem[]>): void {
  const names = ctx.value.map((item) => item.name);
  names.forEach((each, index) => {
    const first = names.indexOf(each);
    if (first === index || typeof each !== "string") return;
    ctx.issues.push({
      code: "custom",
      input: each,
      path: [index, "name"],
      message: `"${each}" names another command tool too (command_tools[${first}]); give each a name of its own`,
    });
  });
}

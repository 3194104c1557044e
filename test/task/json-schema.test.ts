import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { CHECK_KINDS } from "../../src/checks/types.js";
import { TASK_SCHEMA_ID, taskJsonSchema } from "../../src/task/json-schema.js";
import { TaskFileSchema } from "../../src/task/schema.js";
import { parseDuration } from "../../src/task/schema-fields.js";
import { TOOL_NAMES } from "../../src/tools/tool-names.js";

type JsonSchema = {
  $schema?: string;
  $id?: string;
  required?: string[];
  additionalProperties?: unknown;
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  enum?: unknown[];
  pattern?: string;
  description?: string;
};

describe("taskJsonSchema", () => {
  test("schema/task.schema.json is up to date (run `npm run schema` to refresh it)", async () => {
    const onDisk = await readFile(
      new URL("../../schema/task.schema.json", import.meta.url),
      "utf8",
    );

    expect(onDisk).toBe(`${JSON.stringify(taskJsonSchema(), null, 2)}\n`);
  });

  test("describes a strict mapping with required prompt and workspace, every field documented", () => {
    const schema = taskJsonSchema() as JsonSchema;
    const properties = schema.properties ?? {};

    expect(schema).toMatchObject({
      $schema: "http://json-schema.org/draft-07/schema#",
      $id: TASK_SCHEMA_ID,
      type: "object",
      required: ["prompt", "workspace"],
      additionalProperties: false,
    });
    expect(Object.keys(properties)).toEqual(Object.keys(TaskFileSchema.shape));
    expect(properties.limits?.additionalProperties).toBe(false);
    expect(properties.bash?.additionalProperties).toBe(false);
    expect(properties.tools?.items?.enum).toEqual([...TOOL_NAMES]);
    expect(Object.values(properties).filter((field) => !field.description)).toEqual([]);
  });

  test("a check item: every field documented, exactly one kind, unknown fields refused", () => {
    const item = (taskJsonSchema() as JsonSchema).properties?.checks?.items;
    const fields = item?.properties ?? {};

    expect(item?.additionalProperties).toBe(false);
    expect(item?.oneOf?.map((branch) => branch.required)).toEqual(
      CHECK_KINDS.map((kind) => [kind]),
    );
    expect(Object.keys(fields)).toEqual(["name", "run", "timeout", ...CHECK_KINDS.slice(1)]);
    expect(Object.values(fields).filter((field) => !field.description)).toEqual([]);
  });

  test("a valid example fits the schema's fields, and its durations match the pattern", () => {
    const example = {
      name: "fix-login",
      prompt: "Fix the login test",
      workspace: ".",
      limits: { max_steps: 10, timeout: "10m" },
      tools: ["bash", "edit_file"],
      bash: { timeout: "1.5s", env: { CI: "1" } },
    };
    const schema = taskJsonSchema() as JsonSchema;
    const durationPattern = new RegExp(
      schema.properties?.limits?.properties?.timeout?.anyOf?.[0]?.pattern ?? "^$",
    );

    expect(TaskFileSchema.safeParse(example).success).toBe(true);
    expect(Object.keys(example).every((key) => key in (schema.properties ?? {}))).toBe(true);
    expect(
      Object.keys(example.limits).every(
        (key) => key in (schema.properties?.limits?.properties ?? {}),
      ),
    ).toBe(true);
    expect(["10m", "1.5s", "500ms", "2h"].map((text) => durationPattern.test(text))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(["ten minutes", "10", "10 min"].map((text) => durationPattern.test(text))).toEqual([
      false,
      false,
      false,
    ]);
    expect(["10m", "1.5s", "500ms", "2h"].map(parseDuration)).toEqual([
      600_000, 1_500, 500, 7_200_000,
    ]);
  });
});

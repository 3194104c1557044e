import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { CHECK_KINDS } from "../../src/checks/types.js";
import { TASK_SCHEMA_ID, taskJsonSchema } from "../../src/task/json-schema.js";
import { TaskFileSchema } from "../../src/task/schema.js";
import { parseDuration } from "../../src/task/schema-fields.js";
import { TOOL_NAMES } from "../../src/tools/tool-names.js";
import { strictAjv } from "../helpers/json-schema-validator.js";

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

describe("taskJsonSchema under Ajv strict: the same verdict as the runner on each field", () => {
  const validate = strictAjv().compile(taskJsonSchema());
  const base = { prompt: "Fix the failing test", workspace: "." };
  /** [schema accepts, runner accepts] for a task built from `fields`. */
  const verdicts = (fields: Record<string, unknown>) => {
    const task = { ...base, ...fields };
    return [validate(task), TaskFileSchema.safeParse(task).success];
  };
  const agree = (values: unknown[], build: (value: unknown) => Record<string, unknown>) =>
    values.map((value) => [value, ...verdicts(build(value))]);
  const expectAgreement = (rows: unknown[][]) =>
    expect(rows.filter(([, schema, runner]) => schema !== runner)).toEqual([]);

  test("compiles in strict mode (draft-07, formats from ajv-formats)", () => {
    expect(validate(base)).toBe(true);
  });

  test("durations: shape, above zero, at most 7 days in every unit, strings and numbers", () => {
    const values = [
      ...["90s", "10m", "1.5h", "500ms", "007s", "2 m", "168h", "168.0h", "10080m", "604800s"],
      ...["604800000ms", "0.5ms", "168.5h", "169h", "10081m", "604801s", "604800001ms", "1000h"],
      ...["0s", "0.0m", "00h", "1d", "-5s", " 5s", "5", "ten", 90, 0.5, 604_800, 604_800.5, 0, -1],
    ];

    expectAgreement(agree(values, (timeout) => ({ limits: { timeout } })));
    expect(verdicts({ limits: { timeout: "168h" } })).toEqual([true, true]);
    expect(verdicts({ limits: { timeout: "168.5h" } })).toEqual([false, false]);
  });

  test("check paths and globs: relative, and no '..' segment, with either separator", () => {
    const values = [
      ...["src/app.js", "a..b/c", "..hidden", "src/.../x", "./src/a.js", "src\\a.js", "C:foo"],
      ...["/etc/hosts", "\\etc\\hosts", "C:\\x", "c:/x", "..", "../x", "src/../x", "a\\..\\..\\b"],
      ...["a\n/../../b", "line\nbreak.txt"],
    ];

    expectAgreement(agree(values, (path) => ({ checks: [{ file_exists: path }] })));
    expectAgreement(agree(values, (glob) => ({ checks: [{ changed_files: { only: [glob] } }] })));
  });

  test("regexes: format regex, or a leading flag group the runner supports", () => {
    const values = ["return a \\+ b", "(?i)done", "(?ims)^ok$", "(?x)done", "[unclosed", "(a"];
    const build = (regex: unknown) => ({ checks: [{ final_text_matches: regex }] });

    expectAgreement(agree([...values, "done\\Z", "a\\\\Z"], build));
    // Beyond the schema: the rest of a pattern with a flag group, and a \Z where ajv-formats looks for none.
    expect(
      ["(?i)[unclosed", "(?i)done\\Z", "\\Zulu"].map((regex) => verdicts(build(regex))),
    ).toEqual([
      [true, false],
      [true, false],
      [true, false],
    ]);
  });

  test("prompts, check names and run commands: not blank", () => {
    const values = ["Fix it", " x ", "", " ", "\t\n", "\u00a0", "\ufeff"];

    expectAgreement(agree(values, (prompt) => ({ prompt })));
    expectAgreement(agree(values, (run) => ({ checks: [{ run }] })));
  });
});

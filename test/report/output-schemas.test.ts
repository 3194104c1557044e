import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, test } from "vitest";
import { outputJsonSchemas } from "../../src/report/output-schemas.js";
import { SCHEMA_ID_BASE, taskJsonSchema } from "../../src/task/json-schema.js";
import * as lineSchemas from "../../src/transcript/line-schemas.js";
import { strictAjv } from "../helpers/json-schema-validator.js";

/** Every file under schema/, relative to it. */
function committedFiles(dir = "schema"): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? committedFiles(path) : [relative("schema", path)];
  });
}

describe("schema/: the published JSON Schemas", () => {
  const generated = outputJsonSchemas();

  test("each committed file equals the freshly generated one, and none is stale (run `npm run schema`)", () => {
    const expected = ["task.schema.json", ...generated.map((file) => file.path)].sort();

    expect(committedFiles().sort()).toEqual(expected);
    for (const { path, schema } of generated) {
      expect(readFileSync(join("schema", path), "utf8"), path).toBe(
        `${JSON.stringify(schema, null, 2)}\n`,
      );
    }
  });

  test("every schema compiles under Ajv strict, with a stable $id of its own under schema/", () => {
    const ajv = strictAjv();
    const all = [{ path: "task.schema.json", schema: taskJsonSchema() }, ...generated];

    for (const { path, schema } of all) {
      expect(schema.$id, path).toBe(`${SCHEMA_ID_BASE}${path}`);
      ajv.addSchema(schema); // throws on a repeated $id
    }
    // getSchema compiles, and strict mode throws on anything it refuses.
    expect(all.map(({ path }) => typeof ajv.getSchema(`${SCHEMA_ID_BASE}${path}`))).toEqual(
      all.map(() => "function"),
    );
  });

  test("one transcript schema per *LineSchema export, besides the one for any line", () => {
    const kinds = Object.keys(lineSchemas).filter(
      (name) => name.endsWith("LineSchema") && name !== "TranscriptLineSchema",
    );
    const files = generated.filter((file) => file.path.startsWith("transcript/"));

    expect(files).toHaveLength(kinds.length);
    expect(generated.map((file) => file.path)).toContain("transcript-line.schema.json");
    expect(files.map((file) => file.schema.title)).toContain(
      "agent-run transcript line: api-error",
    );
  });
});

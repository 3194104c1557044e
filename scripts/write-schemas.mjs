// Writes schema/: the task file's schema and those of every output, from the built zod schemas.
// Run through `npm run schema` (builds first); test/report/output-schemas.test.ts checks the files.
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { outputJsonSchemas } from "../dist/report/output-schemas.js";
import { taskJsonSchema } from "../dist/task/json-schema.js";

const files = [{ path: "task.schema.json", schema: taskJsonSchema() }, ...outputJsonSchemas()];
for (const { path, schema } of files) {
  const target = fileURLToPath(new URL(`../schema/${path}`, import.meta.url));
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote ${target}`);
}

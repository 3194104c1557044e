// Writes schema/task.schema.json from the built TaskFileSchema. Run through `npm run schema` (builds first).
import { mkdir, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { taskJsonSchema } from "../dist/task/json-schema.js";

const target = new URL("../schema/task.schema.json", import.meta.url);
await mkdir(new URL("./", target), { recursive: true });
await writeFile(target, `${JSON.stringify(taskJsonSchema(), null, 2)}\n`);
console.log(`wrote ${fileURLToPath(target)}`);

import { readdirSync } from "node:fs";

/** The example tasks' names (`tasks/*.yaml`, each named as its file), sorted. */
export const EXAMPLE_TASKS: readonly string[] = readdirSync("tasks")
  .filter((file) => file.endsWith(".yaml"))
  .map((file) => file.slice(0, -".yaml".length))
  .sort();

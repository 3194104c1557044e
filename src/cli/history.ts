import type { Stats } from "node:fs";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError, messageOf } from "../errors.js";
import type { ReportTask } from "../report/aggregate.js";
import { parseReportJson } from "../report/read-report-json.js";
import { readReportText } from "../report/read-report-text.js";
import { expandPatterns } from "./expand-patterns.js";

/**
 * The tasks of the earlier reports `--history` names: `report.json` files, globs of them, or batch
 * folders holding one. Each is read as untrusted input (size-bounded, schema-checked by the
 * report reader); a problem is a `ConfigError` naming the file.
 */
export async function readHistory(patterns: readonly string[]): Promise<ReportTask[]> {
  const tasks: ReportTask[] = [];
  for (const path of await expandPatterns(patterns, "reports")) {
    const file = (await statOf(path)).isDirectory() ? join(path, "report.json") : path;
    const text = await readReportText(file, `--history ${file}`);
    tasks.push(...parseReportJson(text, file).tasks);
  }
  return tasks;
}

async function statOf(path: string): Promise<Stats> {
  try {
    return await stat(path);
  } catch (error) {
    throw new ConfigError(`--history ${path}: cannot read: ${messageOf(error)}`, error);
  }
}

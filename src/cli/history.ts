import type { Stats } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError, messageOf } from "../errors.js";
import type { ReportTask } from "../report/aggregate.js";
import { parseReportJson } from "../report/read-report-json.js";
import { expandPatterns } from "./expand-patterns.js";

/** A `report.json` bigger than this is not one agent-run wrote for any batch one machine runs. */
const MAX_REPORT_BYTES = 256 * 1024 * 1024;

/**
 * The tasks of the earlier reports `--history` names: `report.json` files, globs of them, or batch
 * folders holding one. Each is read as untrusted input (size-bounded, schema-checked by the
 * report reader); a problem is a `ConfigError` naming the file.
 */
export async function readHistory(patterns: readonly string[]): Promise<ReportTask[]> {
  const tasks: ReportTask[] = [];
  for (const path of await expandPatterns(patterns, "reports")) {
    const file = (await statOf(path)).isDirectory() ? join(path, "report.json") : path;
    const info = await statOf(file);
    if (!info.isFile()) throw new ConfigError(`--history ${file}: not a report.json file`);
    if (info.size > MAX_REPORT_BYTES) {
      throw new ConfigError(
        `--history ${file}: ${info.size} bytes, over the ${MAX_REPORT_BYTES} a report.json may have`,
      );
    }
    const text = await readFile(file, "utf8").catch((error: unknown) => {
      throw new ConfigError(`--history ${file}: cannot read: ${messageOf(error)}`, error);
    });
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

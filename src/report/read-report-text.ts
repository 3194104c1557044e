import { ConfigError, messageOf } from "../errors.js";
import { readWholeFile } from "../fs/read-head.js";

/** A `report.json` or `summary.json` bigger than this is not one agent-run wrote for any batch. */
const MAX_REPORT_BYTES = 256 * 1024 * 1024;

/**
 * The text of a `report.json` or `summary.json`, read as hostile input (no link followed, a regular
 * file of at most `MAX_REPORT_BYTES`); `label` names it in the `ConfigError` of a problem.
 */
export async function readReportText(file: string, label = file): Promise<string> {
  let bytes: Buffer | undefined;
  try {
    bytes = await readWholeFile(file, MAX_REPORT_BYTES);
  } catch (error) {
    throw new ConfigError(`${label}: cannot read: ${messageOf(error)}`, error);
  }
  if (bytes === undefined) throw new ConfigError(`${label}: cannot read: no such file`);
  return bytes.toString("utf8");
}

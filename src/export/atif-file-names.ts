import { basename } from "node:path";
import { ConfigError } from "../errors.js";
import { TASK_NAME_PATTERN } from "../task/schema.js";

/** A run as the file names are made from it: its task's name (a safe one) and its folder. */
export type NamedRun = { name: string; folder: string };

/**
 * Each run's file name in the `--atif` folder, in the runs' order: `<task>.json`; when a task has
 * several runs (trials, `OUT/<task>/trial-<n>/`), `<task>.<run folder>.json`. Task names keep to
 * the task-name rule, so the names are safe; names that would still clash (two batches' runs of
 * one task, or names differing only in case, one file on macOS) are refused with `ConfigError`.
 */
export function atifFileNames(runs: readonly NamedRun[]): string[] {
  const count = new Map<string, number>();
  for (const run of runs) count.set(run.name, (count.get(run.name) ?? 0) + 1);
  const names = runs.map((run) => {
    const folder = basename(run.folder);
    const isShared = (count.get(run.name) ?? 0) > 1;
    return isShared && TASK_NAME_PATTERN.test(folder)
      ? `${run.name}.${folder}.json`
      : `${run.name}.json`;
  });
  const seen = new Map<string, number>();
  names.forEach((name, index) => {
    const earlier = seen.get(name.toLowerCase());
    if (earlier !== undefined) {
      throw new ConfigError(
        `${runs[earlier]?.folder} and ${runs[index]?.folder} would both be written to ${name}; export them to different --atif folders`,
      );
    }
    seen.set(name.toLowerCase(), index);
  });
  return names;
}

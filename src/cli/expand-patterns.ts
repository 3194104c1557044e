import { basename, isAbsolute } from "node:path";
import { glob } from "tinyglobby";
import { ConfigError } from "../errors.js";
import { SUMMARY_FILE } from "../report/summary.js";

/**
 * What a pattern may match: task files (`run`); run folders and `summary.json` files (`report`);
 * run folders and transcripts (`replay`, `resume`: a `summary.json` is kept, to be told what to give);
 * `report.json` files (`plan --history`).
 */
export type PatternTarget = "task files" | "run folders" | "recorded runs" | "reports";

/**
 * Expands globs, quoted ones included (for shells that don't), sorted per pattern; a plain path
 * is kept as given. A glob that matches nothing is an error naming it.
 */
export async function expandPatterns(
  patterns: readonly string[],
  target: PatternTarget,
): Promise<string[]> {
  const paths: string[] = [];
  for (const pattern of patterns) {
    if (!/[*?[\]{}]/.test(pattern)) {
      paths.push(pattern);
      continue;
    }
    const matches = (await matchesOf(pattern, target)).sort();
    if (matches.length === 0) {
      throw new ConfigError(`${pattern}: matched no ${target}; check the path and the quotes`);
    }
    paths.push(...matches);
  }
  return paths;
}

async function matchesOf(pattern: string, target: PatternTarget): Promise<string[]> {
  if (target === "task files" || target === "reports") {
    return glob(pattern, { onlyFiles: true, expandDirectories: false });
  }
  const found = await glob(pattern, {
    onlyFiles: false,
    expandDirectories: false,
    absolute: isAbsolute(pattern),
  });
  return found.filter(
    (match) =>
      match.endsWith("/") ||
      basename(match) === SUMMARY_FILE ||
      (target === "recorded runs" && match.endsWith(".jsonl")),
  );
}

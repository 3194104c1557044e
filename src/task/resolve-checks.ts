import { compileCheckPattern } from "../checks/check-pattern.js";
import { shown } from "../checks/output-check.js";
import type { Check } from "../checks/types.js";
import { type CheckItem, DEFAULT_CHECK_TIMEOUT_MS } from "./checks-schema.js";
import type { TaskFile } from "./schema.js";
import { durationMs } from "./schema-fields.js";
import type { Locator } from "./yaml-locator.js";

/** The indexes of the task's checks of one kind: those that set the `kind` key. */
export function checksOfKind(data: TaskFile, kind: keyof CheckItem): number[] {
  return (data.checks ?? []).flatMap((check, index) => (check[kind] === undefined ? [] : [index]));
}

/** Longest default name; longer commands and texts are cut with "…". */
const MAX_DEFAULT_NAME_CHARS = 80;

/** Turns validated `checks:` items into `Check`s, each with its list item's line (for CI annotations). */
export function resolveChecks(items: readonly CheckItem[], locator: Locator): Check[] {
  return items.map((item, index) => {
    const check = toCheck(item, locator.value(["checks", index]).line);
    return item.name === undefined ? { ...check, name: defaultName(check) } : check;
  });
}

/** The schema guarantees exactly one kind key per item; none here is a bug. */
function toCheck(item: CheckItem, line: number): Check {
  const name = item.name ?? "";
  if (item.run !== undefined) {
    const timeoutMs = durationMs(item.timeout, DEFAULT_CHECK_TIMEOUT_MS);
    return { kind: "run", name, line, command: item.run, timeoutMs };
  }
  if (item.file_exists !== undefined)
    return { kind: "file_exists", name, line, path: item.file_exists };
  if (item.file_absent !== undefined)
    return { kind: "file_absent", name, line, path: item.file_absent };
  if (item.file_contains !== undefined)
    return { kind: "file_contains", name, line, ...item.file_contains };
  if (item.file_matches !== undefined) {
    const { path, regex } = item.file_matches;
    return { kind: "file_matches", name, line, path, pattern: regex };
  }
  if (item.changed_files !== undefined) {
    const { only, must, max } = item.changed_files;
    return { kind: "changed_files", name, line, only, must, max };
  }
  if (item.final_text_matches !== undefined)
    return { kind: "final_text_matches", name, line, pattern: item.final_text_matches };
  if (item.plan_complete !== undefined) return { kind: "plan_complete", name, line };
  if (item.output_equals !== undefined) {
    const { pointer, value } = item.output_equals;
    return { kind: "output_equals", name, line, pointer, value };
  }
  throw new Error(`check at line ${line} passed the schema without a kind`);
}

/** A short description that tells checks apart in reports: `run: npm test`, `file_exists: src/a.js`. */
function defaultName(check: Check): string {
  return shorten(`${check.kind}: ${describeTarget(check)}`);
}

function describeTarget(check: Check): string {
  switch (check.kind) {
    case "run":
      return check.command.replace(/\s+/g, " ");
    case "file_exists":
    case "file_absent":
      return check.path;
    case "file_contains":
      return `${check.path} ${JSON.stringify(check.text)}`;
    case "file_matches":
      return `${check.path} ${compileCheckPattern(check.pattern)}`;
    case "changed_files":
      return describeChangedFiles(check);
    case "final_text_matches":
      return String(compileCheckPattern(check.pattern));
    case "plan_complete":
      return "every item completed";
    case "output_equals":
      return `${check.pointer === "" ? '""' : check.pointer} = ${shown(check.value)}`;
    default: {
      const unreachable: never = check;
      return unreachable;
    }
  }
}

function describeChangedFiles(check: Extract<Check, { kind: "changed_files" }>): string {
  const parts = [
    check.only === undefined ? undefined : `only ${check.only.join(", ")}`,
    check.must === undefined ? undefined : `must ${check.must.join(", ")}`,
    check.max === undefined ? undefined : `max ${check.max}`,
  ];
  return parts.filter((part) => part !== undefined).join("; ");
}

function shorten(text: string): string {
  return text.length <= MAX_DEFAULT_NAME_CHARS
    ? text
    : `${text.slice(0, MAX_DEFAULT_NAME_CHARS - 1)}…`;
}

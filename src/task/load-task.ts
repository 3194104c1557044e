import { createHash } from "node:crypto";
import { TaskFileError, type TaskFileProblem } from "../errors.js";
import { realPathOr } from "../fs/real-path.js";
import { describeIssue, problemsFromIssues } from "./describe-issue.js";
import { parseTaskYaml } from "./parse-task-yaml.js";
import { readTaskText } from "./read-task-text.js";
import { resolveTask } from "./resolve-task.js";
import { type Task, TaskFileSchema } from "./schema.js";
import { FILE_START, type Position } from "./yaml-locator.js";

/** A task that got past the schema, with where its name comes from (for duplicate-name problems). */
type NamedTask = { task: Task; namePosition: Position; isNameDefault: boolean };

/** One file's outcome: its task when it got far enough to have one, and its problems. */
type CheckedFile = { named: NamedTask | undefined; problems: TaskFileProblem[] };

/**
 * Loads a batch of task files, all or nothing, so one CI run shows every mistake at once.
 * Files are validated together; the same file named twice is loaded once. The file system calls
 * are synchronous: nothing else runs yet.
 * @throws TaskFileError listing every problem of every file, sorted by file, line and column.
 */
export async function loadTasks(files: string[]): Promise<Task[]> {
  const checked = uniqueFiles(files).map(checkTaskFile);
  const named = checked.flatMap((file) => (file.named === undefined ? [] : [file.named]));
  const problems = [...checked.flatMap((file) => file.problems), ...duplicateNameProblems(named)];
  if (problems.length > 0) throw new TaskFileError(problems.sort(compareProblems));
  return named.map((entry) => entry.task);
}

function checkTaskFile(file: string): CheckedFile {
  const failed = (problems: TaskFileProblem[]): CheckedFile => ({ named: undefined, problems });
  const text = readTaskText(file);
  if (!text.ok) return failed([{ file, ...FILE_START, path: "", message: text.message }]);
  const parsed = parseTaskYaml(file, text.text);
  if (!parsed.ok) return failed(parsed.problems);
  // jitless: zod would otherwise compile a parser for each object schema (with `new Function`)
  // on its first use, which costs more than the few files of a batch can win back.
  const result = TaskFileSchema.safeParse(parsed.data, { error: describeIssue, jitless: true });
  if (!result.success) {
    return failed(
      problemsFromIssues(file, result.error.issues, parsed.data, parsed.locator, TaskFileSchema),
    );
  }
  const resolved = resolveTask(file, result.data, parsed.locator);
  const task = { ...resolved.task, fileSha256: sha256Hex(text.text) };
  const { problems } = resolved;
  const isNameDefault = result.data.name === undefined;
  const namePosition = isNameDefault ? FILE_START : parsed.locator.value(["name"]);
  return { named: { task, namePosition, isNameDefault }, problems };
}

function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Keeps the first spelling of each file, comparing real paths (`./a.yaml` = `a.yaml`). */
function uniqueFiles(files: readonly string[]): string[] {
  const seen = new Set<string>();
  const unique: string[] = [];
  for (const file of files) {
    const identity = realPathOr(file);
    if (seen.has(identity)) continue;
    seen.add(identity);
    unique.push(file);
  }
  return unique;
}

/** Task names become output folder names, so they must differ (ignoring case, for macOS and Windows). */
function duplicateNameProblems(named: readonly NamedTask[]): TaskFileProblem[] {
  const byName = new Map<string, NamedTask[]>();
  for (const entry of named) {
    const key = entry.task.name.toLowerCase();
    byName.set(key, [...(byName.get(key) ?? []), entry]);
  }
  return [...byName.values()]
    .filter((group) => group.length > 1)
    .flatMap((group) => group.map((entry) => duplicateNameProblem(entry, group)));
}

function duplicateNameProblem(entry: NamedTask, group: readonly NamedTask[]): TaskFileProblem {
  const others = group.filter((other) => other !== entry).map((other) => other.task.file);
  const source = entry.isNameDefault ? " (from the file name)" : "";
  return {
    file: entry.task.file,
    ...entry.namePosition,
    path: "name",
    message: `task name ${JSON.stringify(entry.task.name)}${source} is also used by ${others.join(", ")}; give each task a unique "name:"`,
  };
}

/** File, then line, then column: the order editors list problems in. */
export function compareProblems(a: TaskFileProblem, b: TaskFileProblem): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column;
}

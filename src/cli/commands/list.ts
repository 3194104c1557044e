import { formatMarkdownTable } from "../../report/markdown-table.js";
import { type TaskListJson, taskListJson } from "../../task/task-list-json.js";
import { loadBatchTasks } from "../batch-tasks.js";
import { EXIT } from "../exit-codes.js";
import type { CliIo } from "../io.js";
import type { ListArgs } from "../plan-flags.js";

/**
 * `agent-run list`: validates the batch as `run` does before it starts and prints its tasks (a
 * shard's, with `--shard`): a table, or with `--json` one line of JSON (schema/task-list.schema.json).
 */
export async function listCommand(args: ListArgs, io: CliIo): Promise<number> {
  const batch = await loadBatchTasks(args.options, io);
  const list = taskListJson(batch.tasks, batch.modelOf);
  io.writeOut(args.isJson ? JSON.stringify(list) : formatTaskList(list));
  return EXIT.ok;
}

function formatTaskList(list: TaskListJson): string {
  const table = formatMarkdownTable(
    [
      { header: "task", align: "left", isText: true },
      { header: "file", align: "left", isText: true },
      { header: "model", align: "left", isText: true },
    ],
    list.map((task) => [task.name, task.file, task.model]),
    "plain",
  );
  return `${table}\n\n${list.length} ${list.length === 1 ? "task" : "tasks"}`;
}

import { constants } from "node:fs";
import { access, mkdir, realpath } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError, messageOf } from "../errors.js";
import { isSameOrInside, realPathOr, resolveRealPath } from "../fs/real-path.js";
import { isReplaceable, RUN_MARKER_FILE } from "../run/run-folder.js";
import type { Task } from "../task/schema.js";

/**
 * Checks the output folder against the batch before anything runs, then creates it. Refuses an
 * --out inside a task's workspace (the copy would nest; in place, the agent could reach it, unless
 * allowed), a task folder that exists but is not an
 * earlier run's (it would be replaced), and --in-place tasks whose workspaces overlap when they
 * could run at the same time (each would count the other's edits as its own).
 * Returns warnings for the log.
 */
export async function prepareOutDir(
  outDir: string,
  tasks: readonly Task[],
  options: { isInPlace: boolean; isOutInWorkspaceAllowed: boolean; concurrency: number },
): Promise<string[]> {
  const warnings: string[] = [];
  // Real paths: an --out reached through a symlink into the workspace is inside it too.
  const realOut = resolveRealPath(outDir);
  for (const task of tasks) {
    if (isSameOrInside(realOut, realPathOr(task.workspace))) {
      if (!options.isInPlace) {
        throw new ConfigError(
          `--out ${outDir} is inside the workspace of task "${task.name}" (${task.workspace}); choose an output folder outside it`,
        );
      }
      if (!options.isOutInWorkspaceAllowed) {
        throw new ConfigError(
          `--out ${outDir} is inside the workspace of task "${task.name}" (${task.workspace}), where the agent works in place and its commands could rewrite the transcript; choose an --out outside the workspace, or pass --allow-out-in-workspace`,
        );
      }
      warnings.push(
        `--out ${outDir} is inside the workspace of task "${task.name}": agent-run leaves it out of the change and the file tools refuse it, but without the sandbox the agent's commands can reach it (git add -A too); add it to .gitignore or choose --out outside`,
      );
    }
    const runDir = join(outDir, task.name);
    if (!isReplaceable(runDir)) {
      throw new ConfigError(
        `${runDir} exists and is not an agent-run output folder (it has no ${RUN_MARKER_FILE} marker), so it will not be replaced; choose another --out or remove it`,
      );
    }
  }
  if (options.isInPlace && options.concurrency > 1) await refuseOverlappingWorkspaces(tasks);
  try {
    await mkdir(outDir, { recursive: true });
    await access(outDir, constants.W_OK);
  } catch (error) {
    throw new ConfigError(
      `cannot write to the output folder ${outDir}: ${messageOf(error)}; choose another with --out`,
    );
  }
  return warnings;
}

async function refuseOverlappingWorkspaces(tasks: readonly Task[]): Promise<void> {
  const real = await Promise.all(
    tasks.map(async (task) => ({ task, path: await realpath(task.workspace) })),
  );
  for (const [index, a] of real.entries()) {
    for (const b of real.slice(index + 1)) {
      if (isSameOrInside(a.path, b.path) || isSameOrInside(b.path, a.path)) {
        throw new ConfigError(
          `tasks "${a.task.name}" and "${b.task.name}" both work in place in overlapping folders (${a.path}, ${b.path}); run them one at a time with --concurrency 1`,
        );
      }
    }
  }
}

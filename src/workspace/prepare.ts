import { lstatSync, mkdirSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { messageOf } from "../errors.js";
import { isSameOrInside, resolveRealPath } from "../fs/real-path.js";
import { assertCopyable, copyTree } from "./copy-tree.js";

/** Where the agent should work, and how to get there. */
export type PrepareOptions = {
  /** The task's workspace folder. */
  source: string;
  /** The task's output folder; a copy goes to `<runDir>/workspace`. */
  runDir: string;
  /** Work in `source` itself instead of a copy. */
  inPlace: boolean;
};

/** The folder the agent works in: a real path (no symlinks), safe to compare and to show. */
export type PreparedWorkspace = { path: string };

/** Where the agent will work, checked; `copy` makes it (in place, there is nothing to make). */
export type WorkspacePlan = PreparedWorkspace & { copy: () => Promise<void> };

/**
 * Gives the agent a folder to edit: by default a fresh copy of `source` in `<runDir>/workspace`
 * (a previous copy is removed first), with `--in-place` the source itself.
 * The copy leaves out every `.git` folder or file, at any depth, keeps symlinks as symlinks
 * (targets unchanged), file modes and timestamps, and uses copy-on-write clones where the file
 * system offers them. Throws a plain Error for a missing source or an output folder that overlaps it.
 */
export async function prepareWorkspace(options: PrepareOptions): Promise<PreparedWorkspace> {
  const plan = await planWorkspace(options);
  await plan.copy();
  return { path: plan.path };
}

/**
 * `prepareWorkspace` in two steps: first every check, including that each file of the source can
 * be copied (a FIFO, socket, device or unreadable file is refused, named), then the copy itself.
 */
export async function planWorkspace(options: PrepareOptions): Promise<WorkspacePlan> {
  const source = resolveRealPath(options.source);
  assertFolder(source, options.source);
  if (options.inPlace) {
    // A snapshot would skip a FIFO or socket and fail on an unreadable file: refused up front too.
    await assertCopyable(source).catch((error: unknown) => {
      throw new Error(`the workspace ${options.source} cannot be read: ${messageOf(error)}`, {
        cause: error,
      });
    });
    return { path: source, copy: async () => {} };
  }

  const target = join(resolveRealPath(options.runDir), "workspace");
  if (isSameOrInside(source, target)) {
    throw new Error(
      `the workspace ${options.source} is inside ${target}, which each run replaces; pick another --out`,
    );
  }
  if (isSameOrInside(target, source)) {
    throw new Error(
      `the output folder ${options.runDir} is inside the workspace ${options.source}, so the copy would contain itself; pick an --out outside the workspace`,
    );
  }
  try {
    await assertCopyable(source);
  } catch (error) {
    throw new Error(
      `copying the workspace ${options.source} to ${target} failed: ${messageOf(error)}`,
      {
        cause: error,
      },
    );
  }
  const copy = async () => {
    // A previous copy can be big: its removal goes through the thread pool.
    if (lstatSync(target, { throwIfNoEntry: false }) !== undefined) {
      await rm(target, { recursive: true, force: true });
    }
    mkdirSync(dirname(target), { recursive: true });
    await copyTree(source, target).catch((error: unknown) => {
      throw new Error(
        `copying the workspace ${options.source} to ${target} failed: ${String(error)}`,
        { cause: error },
      );
    });
  };
  return { path: target, copy };
}

function assertFolder(path: string, shown: string): void {
  let isFolder: boolean;
  try {
    isFolder = statSync(path).isDirectory();
  } catch (error) {
    throw new Error(`workspace folder ${shown} does not exist`, { cause: error });
  }
  if (!isFolder) throw new Error(`workspace ${shown} is not a folder`);
}

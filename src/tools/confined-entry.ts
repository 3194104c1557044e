import { randomUUID } from "node:crypto";
import { constants, type Stats } from "node:fs";
import { type FileHandle, open, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { ToolError } from "./define-tool.js";
import { errorCode, toDisplayPath } from "./workspace-path.js";

// What `locate` (confined-open.ts) hands back: a thing in a folder held open, and what the tools
// do with it through that folder.

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/** How a folder of the walk is opened: never through a link, never anything but a folder. */
export const OPEN_FOLDER = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/** A folder of the workspace, held open; `entry(name)` is a path that names `name` in it. */
export type Folder = {
  handle: FileHandle;
  /** Its names below the root (real, no links). */
  parts: readonly string[];
  entry(name: string): string;
};

/** The thing a path names, in its folder, held open (`close` when done). */
export type Located = {
  /** How messages show it: relative to the root, links resolved. */
  shown: string;
  /** lstat of it (never a link: links are followed); undefined when it does not exist. */
  info: Stats | undefined;
  /** True for the workspace root itself. */
  isRoot: boolean;
  /**
   * Opens it for reading (O_NOFOLLOW, and O_NONBLOCK so a FIFO swapped in cannot hang the run)
   * and checks that what was opened is a regular file.
   */
  openForReading(): Promise<{ handle: FileHandle; info: Stats }>;
  /**
   * Replaces (or creates) it with `content`: a temporary file made in the pinned folder
   * (O_EXCL, O_NOFOLLOW), given `mode` if set, renamed over the name there.
   */
  replace(content: string, mode: number | undefined): Promise<void>;
  /** Opens it as a folder; the path returned lists it through the open folder. */
  openAsFolder(): Promise<{ path: string; close(): Promise<void> }>;
  close(): Promise<void>;
};

/** What `makeLocated` needs: where the thing is, and the walk's settings. */
type Where = {
  realRoot: string;
  root: Folder;
  mode: "fd" | "path";
  folder: Folder;
  parts: readonly string[];
  info: Stats | undefined;
  /** Throws when an opened folder is a protected one. */
  guard(folder: Folder): Promise<void>;
};

/** The `Located` for `where.parts`, found in `where.folder` (held open until `close`). */
export function makeLocated(where: Where): Located {
  const { realRoot, root, folder, parts, info } = where;
  const name = parts.at(-1);
  const shown = toDisplayPath(realRoot, join(realRoot, ...parts));
  const path = name === undefined ? folder.entry(".") : folder.entry(name);
  return {
    shown,
    info,
    isRoot: name === undefined,
    async openForReading() {
      const handle = await open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch(
        (error: unknown) => {
          throw fsFailure(error, shown, "read");
        },
      );
      const opened = await handle.stat();
      if (!opened.isFile()) {
        await handle.close();
        throw new ToolError(
          `"${shown}" changed while it was opened and is no longer a regular file; try again`,
        );
      }
      return { handle, info: opened };
    },
    async replace(content, mode) {
      if (name === undefined) throw new ToolError(`"${shown}" is a directory; give a file path`);
      const temp = folder.entry(`.${name}.${randomUUID().slice(0, 8)}.tmp`);
      let handle: FileHandle | undefined;
      try {
        handle = await open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666);
        await handle.writeFile(content);
        if (mode !== undefined) await handle.chmod(mode);
        await handle.close();
        handle = undefined;
        await rename(temp, path);
      } catch (error) {
        await handle?.close();
        await unlink(temp).catch(() => undefined);
        throw fsFailure(error, shown, "written");
      }
    },
    async openAsFolder() {
      if (name === undefined) return { path, close: async () => {} };
      const handle = await open(path, OPEN_FOLDER).catch((error: unknown) => {
        throw fsFailure(error, shown, "listed");
      });
      const opened = makeFolder(handle, parts, realRoot, where.mode);
      try {
        await where.guard(opened);
      } catch (error) {
        await handle.close();
        throw error;
      }
      return { path: opened.entry("."), close: () => handle.close() };
    },
    async close() {
      if (folder !== root) await folder.handle.close();
      await root.handle.close();
    },
  };
}

/**
 * A folder held open. In "fd" mode its entries are named through `/proc/self/fd/<fd>`, which the
 * kernel resolves to the open folder itself; in "path" mode by its real path.
 */
export function makeFolder(
  handle: FileHandle,
  parts: readonly string[],
  realRoot: string,
  mode: "fd" | "path",
): Folder {
  const base = mode === "fd" ? `/proc/self/fd/${handle.fd}` : join(realRoot, ...parts);
  return { handle, parts, entry: (name) => (name === "." ? base : `${base}/${name}`) };
}

/**
 * A file system error as the model sees it: what failed on `shown`, never the `/proc/self/fd`
 * path it went through. A folder moved or removed under the call (a concurrent process) says so.
 */
export function fsFailure(
  error: unknown,
  shown: string,
  done: "read" | "written" | "listed",
): unknown {
  const code = errorCode(error);
  if (code === undefined) return error;
  if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") {
    return new ToolError(
      `"${shown}" changed while it was being ${done} (it or its folder was moved, removed or replaced); nothing was ${done}, try again`,
    );
  }
  if (code === "EACCES" || code === "EPERM") {
    return new ToolError(`"${shown}" cannot be ${done} (permission denied)`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError(
    `"${shown}" could not be ${done}: ${message.replace(/, \w+ '[^']*'( -> '[^']*')?$/, "")}`,
  );
}

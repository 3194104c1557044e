import {
  chmodSync,
  constants,
  type Dirent,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
} from "node:fs";
import { access, copyFile, lstat, readdir, utimes } from "node:fs/promises";

/**
 * Paths are bytes throughout: a name that is not valid UTF-8 would turn into U+FFFD as a string
 * and no longer name the file.
 */
type BytePath = Buffer<ArrayBuffer>;

const SLASH = Buffer.from("/");
const GIT = Buffer.from(".git");

function join(folder: BytePath, name: BytePath): BytePath {
  return Buffer.concat([folder, SLASH, name]);
}

/** How a path is shown in an error: as UTF-8, with U+FFFD for bytes that are not. */
function shown(path: BytePath): string {
  return path.toString("utf8");
}

/** Copy as a new file (the target is fresh), cloned (copy-on-write) where the file system can. */
const COPY_MODE = constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE;

/**
 * File copies in flight at once (libuv's thread pool runs four file operations at a time): enough
 * to keep it busy, few enough that other tasks' file work is not queued behind a whole tree.
 */
const MAX_COPIES_IN_FLIGHT = 8;

/**
 * Copies the folder `source` to `target` (which must not exist), leaving out every entry named
 * `.git` (folder, file or symlink) at any depth. Files keep their bytes, mode, and access and
 * modification times (as they were before the copy read them), and are cloned (copy-on-write)
 * where the file system offers it; symlinks are recreated with the same target text; folders keep
 * their mode. Any other kind of entry (a FIFO, socket or device) is an error, as is any failing
 * file operation; the first error is thrown once the copies already started have ended.
 *
 * Files are copied on libuv's thread pool, up to MAX_COPIES_IN_FLIGHT at once, so that the event
 * loop, which the other tasks of a batch share, does not wait for their bytes. Folders and
 * symlinks, far fewer, are made at once: through the pool, each would wait behind the copies
 * queued there. (Node's `fs.cp` copies one entry after another, several pool round trips each.)
 */
export async function copyTree(source: string, target: string): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  try {
    await copyFolders(Buffer.from(source), Buffer.from(target), inFlight);
  } finally {
    // Nothing keeps writing into the copy after this returns or throws.
    await Promise.allSettled(inFlight);
  }
}

/**
 * Throws, naming the first one, when `source` holds an entry `copyTree` would refuse (a FIFO,
 * socket or device) or a file or folder it cannot read; `.git` entries are skipped, as in the copy.
 * A walk of names, types and permissions only: far cheaper than the copy, so it can come first.
 * Like the copy, it runs on the thread pool.
 */
export async function assertCopyable(source: string): Promise<void> {
  const pending = [Buffer.from(source)];
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    const files: BytePath[] = [];
    for (const entry of await readdir(folder, { withFileTypes: true, encoding: "buffer" })) {
      if (entry.name.equals(GIT)) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile()) files.push(path);
      else if (!entry.isSymbolicLink()) {
        throw new Error(`cannot copy ${shown(path)}: it is ${describeKind(entry)}`);
      }
    }
    await Promise.all(files.map((path) => access(path, constants.R_OK)));
  }
}

/** Walks the folders depth first; each folder's mode is set once everything in it exists. */
async function copyFolders(
  source: BytePath,
  target: BytePath,
  inFlight: Set<Promise<void>>,
): Promise<void> {
  const pending = [{ from: source, to: target }];
  const created: { to: BytePath; mode: number }[] = [];
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    const { from, to } = folder;
    mkdirSync(to);
    created.push({ to, mode: lstatSync(from).mode });
    for (const entry of readdirSync(from, { withFileTypes: true, encoding: "buffer" })) {
      if (entry.name.equals(GIT)) continue;
      const paths = { from: join(from, entry.name), to: join(to, entry.name) };
      if (entry.isDirectory()) pending.push(paths);
      else if (entry.isSymbolicLink()) {
        symlinkSync(readlinkSync(paths.from, { encoding: "buffer" }), paths.to);
      } else if (!entry.isFile()) {
        throw new Error(`cannot copy ${shown(paths.from)}: it is ${describeKind(entry)}`);
      } else {
        if (inFlight.size >= MAX_COPIES_IN_FLIGHT) await Promise.race(inFlight);
        startCopy(paths.from, paths.to, inFlight);
      }
    }
  }
  await Promise.all(inFlight);
  for (const { to, mode } of created.reverse()) chmodSync(to, mode);
}

/** Starts a file's copy on the thread pool; it leaves `inFlight` when done. */
function startCopy(from: BytePath, to: BytePath, inFlight: Set<Promise<void>>): void {
  // A finished copy leaves the set; a failed one stays, so the next wait on the set throws.
  const copy: Promise<void> = lstat(from)
    .then(async (info) => {
      await copyFile(from, to, COPY_MODE);
      // Access and modification times as they were, in seconds with the sub-millisecond part.
      await utimes(to, info.atimeMs / 1000, info.mtimeMs / 1000);
    })
    .then(() => {
      inFlight.delete(copy);
    });
  copy.catch(() => {}); // handled by whoever waits on the set next; not an unhandled rejection
  inFlight.add(copy);
}

function describeKind(entry: Dirent<Buffer>): string {
  if (entry.isFIFO()) return "a FIFO pipe";
  if (entry.isSocket()) return "a socket";
  if (entry.isCharacterDevice()) return "a character device";
  if (entry.isBlockDevice()) return "a block device";
  return "neither a file, a folder nor a symlink";
}

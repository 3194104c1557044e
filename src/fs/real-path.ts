import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { hasErrorCode } from "../errors.js";

/**
 * The real path of `path` even when its tail does not exist yet: the nearest existing ancestor is
 * resolved (symlinks, /tmp → /private/tmp) and the missing rest appended, so paths compare reliably.
 */
export function resolveRealPath(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch (error) {
    const parent = dirname(absolute);
    if (parent === absolute || !isMissing(error)) throw error;
    return join(resolveRealPath(parent), basename(absolute));
  }
}

/** The real path of `path`, or `path` made absolute when it cannot be resolved (it may not exist yet). */
export function realPathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** True when `child` is `parent` itself or lies below it (both already resolved). */
export function isSameOrInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!isAbsolute(rel) && rel.split(sep)[0] !== "..");
}

/**
 * `path` relative to `root` when it lies below it (`tasks/fix.yaml`), else `path` as given: how a
 * path is shown to something that resolves it from `root` (GitHub from the repository, a reader
 * from the current folder).
 */
export function relativeIfInside(path: string, root: string): string {
  const absolute = resolve(path);
  const base = resolve(root);
  return absolute !== base && isSameOrInside(absolute, base) ? relative(base, absolute) : path;
}

function isMissing(error: unknown): boolean {
  return hasErrorCode(error, "ENOENT");
}

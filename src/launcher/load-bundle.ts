import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Script, constants as vmConstants } from "node:vm";

/** What `scripts/bundle.mjs` writes next to the bundle: its file name and a hash of its content. */
type BundleManifest = { entry: string; sha256: string };

/** The bundle's exports that bin/agent-run.js calls. */
export type BundleExports = {
  main: (argv: readonly string[], options: { handleSignals: boolean }) => Promise<number>;
};

/**
 * Whether compiled code came from the cache: `accepted`; `missing` (first run of this bundle on
 * this Node); `rejected` (V8 refused it: another Node, other flags, a damaged file); `off`.
 */
export type CodeCacheStatus = "accepted" | "missing" | "rejected" | "off";

/** A loaded bundle, and the way to keep its compiled code for the next start. */
export type LoadedBundle = {
  exports: BundleExports;
  cacheStatus: CodeCacheStatus;
  /** The cache file used or to write; undefined when caching is off. */
  cacheFile: string | undefined;
  /**
   * Writes V8's compiled code (everything the run compiled so far, not just the top level) when
   * the cache was missing or rejected; only the first call writes. Call it once the command is
   * done, or before changing V8 flags (a cache is valid only for the flags it was made with).
   * Never throws: a cache that cannot be written only makes the next start slower.
   */
  saveCodeCache: () => void;
};

/** Where the bundle lives and where its compiled code is cached. */
export type LoadBundleOptions = {
  /** The folder with manifest.json and the bundle (dist/bundle). */
  bundleDir: string;
  /**
   * `AGENT_RUN_CODE_CACHE`: a folder for the cache, or "off". Unset: a private folder in the
   * system's temporary folder, as Node's own compile cache does.
   */
  cacheSetting: string | undefined;
};

/**
 * Loads the bundled CLI (one CommonJS file) with a V8 code cache: on later starts V8 reads the
 * compiled code instead of parsing and compiling about 1.4 MB of JavaScript, which is most of what
 * starting agent-run costs. V8 checks each cache against its version, flags and the source, and
 * compiles from source when it does not match; the file name also carries the bundle's hash, so a
 * new build never meets an old cache.
 */
export function loadBundle(options: LoadBundleOptions): LoadedBundle {
  const manifest = readManifest(options.bundleDir);
  const file = join(options.bundleDir, manifest.entry);
  const source = readFileSync(file, "utf8");
  const cacheFile = cacheFileFor(manifest, statSync(file), options.cacheSetting);
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile);
  const script = new Script(wrapCommonJs(source), {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
    // The bundle has no import() of its own; this keeps Node's loader if a dependency has one.
    ...(vmConstants?.USE_MAIN_CONTEXT_DEFAULT_LOADER === undefined
      ? {}
      : { importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER }),
  });
  const cacheStatus: CodeCacheStatus =
    cacheFile === undefined
      ? "off"
      : cachedData === undefined
        ? "missing"
        : script.cachedDataRejected === true
          ? "rejected"
          : "accepted";
  const exports = runCommonJs(script, file);
  let isSaved = cacheStatus === "accepted";
  return {
    exports,
    cacheStatus,
    cacheFile,
    saveCodeCache: () => {
      if (cacheFile === undefined || isSaved) return;
      isSaved = true;
      try {
        writeCache(cacheFile, script.createCachedData());
      } catch {
        // Best effort: without a cache the next start compiles from source again.
      }
    },
  };
}

function readManifest(bundleDir: string): BundleManifest {
  const path = join(bundleDir, "manifest.json");
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`agent-run is not built: cannot read ${path}; run \`npm run build\``, {
      cause: error,
    });
  }
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    !("entry" in parsed) ||
    !("sha256" in parsed) ||
    typeof parsed.entry !== "string" ||
    typeof parsed.sha256 !== "string"
  ) {
    throw new Error(`${path} is damaged; run \`npm run build\` again`);
  }
  return { entry: parsed.entry, sha256: parsed.sha256 };
}

/** The function Node's CommonJS loader wraps each module in. */
function wrapCommonJs(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
}

/** Runs the wrapped CommonJS bundle as Node's loader would, and returns its exports. */
function runCommonJs(script: Script, file: string): BundleExports {
  const run: unknown = script.runInThisContext();
  if (typeof run !== "function") throw new Error(`${file} did not compile to a module`);
  const module: { exports: unknown } = { exports: {} };
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  const { exports } = module;
  if (
    typeof exports !== "object" ||
    exports === null ||
    !("main" in exports) ||
    typeof exports.main !== "function"
  ) {
    throw new Error(`${file} does not export main; run \`npm run build\` again`);
  }
  return { main: exports.main.bind(exports) };
}

/**
 * The cache file for this bundle on this Node, or undefined when caching is off or unsafe. The name
 * also carries the bundle file's size and time, so a bundle edited in place (V8 itself checks only
 * the source's length) never runs stale compiled code.
 */
function cacheFileFor(
  manifest: BundleManifest,
  bundle: { size: number; mtimeMs: number },
  setting: string | undefined,
): string | undefined {
  if (setting === "off" || setting === "0") return undefined;
  const userId = process.getuid?.();
  const dir =
    setting !== undefined && setting !== ""
      ? setting
      : join(tmpdir(), `agent-run-code-cache${userId === undefined ? "" : `-${userId}`}`);
  if (!isPrivateFolder(dir, userId)) return undefined;
  const edition = `${bundle.size}-${Math.round(bundle.mtimeMs)}`;
  const name = `${manifest.sha256}-${edition}-${process.version}-${process.arch}.v8cache`;
  return join(dir, name);
}

/**
 * Creates the folder (owner-only) if needed, and says whether it is safe to load compiled code
 * from: owned by this user and writable by no one else, so no other user can plant a cache.
 */
function isPrivateFolder(dir: string, userId: number | undefined): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const info = statSync(dir);
    if (!info.isDirectory()) return false;
    if (userId !== undefined && info.uid !== userId) return false;
    return (info.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Caches kept per folder: other builds and Node versions beyond these are removed. */
export const MAX_CACHE_FILES = 4;

/**
 * Writes through a temporary file and a rename, so concurrent runs never read half a cache, then
 * removes all but the newest `MAX_CACHE_FILES` caches (each new build or Node adds one).
 */
function writeCache(file: string, data: Buffer): void {
  const partial = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(partial, data, { mode: 0o600 });
    renameSync(partial, file);
    removeOldCaches(dirname(file));
  } catch {
    // Best effort: without a cache the next start compiles from source again.
    rmSync(partial, { force: true });
  }
}

/** A file's time, or 0 when another run removed it meanwhile. */
function modifiedMs(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function removeOldCaches(dir: string): void {
  const caches = readdirSync(dir)
    .filter((name) => name.endsWith(".v8cache"))
    .map((name) => ({ path: join(dir, name), modifiedMs: modifiedMs(join(dir, name)) }))
    .sort((a, b) => b.modifiedMs - a.modifiedMs);
  for (const old of caches.slice(MAX_CACHE_FILES)) rmSync(old.path, { force: true });
}

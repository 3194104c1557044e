// Generated workspaces: the small one the sessions' tool calls read, and the 20,000-file tree.

import { mkdirSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A deterministic pseudo-random generator (mulberry32). */
export function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  "const",
  "value",
  "return",
  "function",
  "items",
  "index",
  "result",
  "config",
  "export",
  "await",
  "string",
  "number",
  "options",
  "handler",
  "request",
  "response",
  "error",
  "parse",
  "format",
  "length",
];

/** Source-like text of about `bytes` characters (lines of words, indentation, comments). */
export function sourceText(rand, bytes) {
  const lines = [];
  let size = 0;
  while (size < bytes) {
    const depth = Math.floor(rand() * 3);
    const count = 3 + Math.floor(rand() * 8);
    const words = [];
    for (let i = 0; i < count; i += 1) words.push(WORDS[Math.floor(rand() * WORDS.length)]);
    const line = `${"  ".repeat(depth)}${rand() < 0.1 ? "// " : ""}${words.join(" ")};`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join("\n")}\n`.slice(0, bytes);
}

/**
 * The sessions' workspace: data/part-0.txt … part-9.txt of `partBytes` characters each (what the
 * scripted `cat data/part-<k>.txt` calls print) and a few source files.
 */
export function makeSessionWorkspace(dir, partBytes, seed = 1) {
  const rand = random(seed);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "data"), { recursive: true });
  mkdirSync(join(dir, "src"), { recursive: true });
  for (let k = 0; k < 10; k += 1) {
    const text = sourceText(rand, partBytes - 1);
    writeFileSync(join(dir, "data", `part-${k}.txt`), `${text}\n`.slice(0, partBytes));
  }
  writeFileSync(
    join(dir, "README.md"),
    "# bench workspace\n\nFiles read by the scripted session.\n",
  );
  writeFileSync(join(dir, "src", "index.js"), sourceText(rand, 2_000));
  return dir;
}

/**
 * The big tree: `files` files in folders of 100 (d00/s0/f000.js …), 300–4,000 characters each,
 * every mtime set one hour back (as in a checkout that is not being edited, so no index entry is
 * "racily clean"). Returns the relative paths.
 */
export function makeBigTree(dir, files, seed = 7) {
  const rand = random(seed);
  rmSync(dir, { recursive: true, force: true });
  const paths = [];
  const perFolder = 100;
  const past = new Date(Date.now() - 3_600_000);
  for (let i = 0; i < files; i += 1) {
    const folder = Math.floor(i / perFolder);
    const rel = join(
      `d${String(Math.floor(folder / 10)).padStart(2, "0")}`,
      `s${folder % 10}`,
      `f${String(i % perFolder).padStart(3, "0")}.js`,
    );
    if (i % perFolder === 0) mkdirSync(join(dir, rel, ".."), { recursive: true });
    const full = join(dir, rel);
    writeFileSync(full, sourceText(rand, 300 + Math.floor(rand() * 3_700)));
    utimesSync(full, past, past);
    paths.push(rel);
  }
  return paths;
}

/** Changes 20 files of the tree: 16 modified, 2 added, 2 deleted. Returns what it did. */
export function changeTwentyFiles(dir, paths, seed = 11) {
  const rand = random(seed);
  const step = Math.floor(paths.length / 20);
  const modified = [];
  for (let k = 0; k < 16; k += 1) {
    const rel = paths[k * step + 3];
    writeFileSync(join(dir, rel), `// changed by the bench (${k})\n${sourceText(rand, 1_000)}`, {
      flag: "a",
    });
    modified.push(rel);
  }
  const deleted = [paths[16 * step + 5], paths[17 * step + 5]];
  for (const rel of deleted) unlinkSync(join(dir, rel));
  const added = ["d00/s0/new-a.js", "d01/s1/new-b.js"];
  for (const rel of added) writeFileSync(join(dir, rel), sourceText(rand, 800));
  return { modified, added, deleted, count: modified.length + added.length + deleted.length };
}

import { spawn } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** A fenced code block of a Markdown file: its info string, its text and the line it opens on. */
export type FencedBlock = { lang: string; text: string; line: number };

/** Every fenced block of `markdown`, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { lang: string; line: number; lines: string[] } | undefined;
  markdown.split("\n").forEach((line, index) => {
    const fence = /^```(\S*)\s*$/.exec(line);
    if (open === undefined) {
      if (fence !== null) open = { lang: fence[1] ?? "", line: index + 1, lines: [] };
    } else if (fence !== null && fence[1] === "") {
      blocks.push({ lang: open.lang, text: open.lines.join("\n"), line: open.line });
      open = undefined;
    } else {
      open.lines.push(line);
    }
  });
  return blocks;
}

/**
 * The blocks a user could copy commands from: `sh` blocks, and blocks showing a session whose
 * commands start with `$ `.
 */
export function commandBlocks(markdown: string): FencedBlock[] {
  return fencedBlocks(markdown).filter((block) => block.lang === "sh" || /^\$ /m.test(block.text));
}

/** The block whose first line is `firstLine`; throws (naming it) when the doc has none. */
export function blockStartingWith(markdown: string, firstLine: string): FencedBlock {
  const block = fencedBlocks(markdown).find((each) => each.text.split("\n")[0] === firstLine);
  if (block === undefined) throw new Error(`no fenced block starts with ${firstLine}`);
  return block;
}

/** A shown session's commands (`$ ` lines), each with the output lines shown under it. */
export function sessionCommands(block: FencedBlock): { command: string; output: string[] }[] {
  const commands: { command: string; output: string[] }[] = [];
  for (const line of block.text.split("\n")) {
    if (line.startsWith("$ ")) commands.push({ command: line.slice(2), output: [] });
    else commands.at(-1)?.output.push(line);
  }
  return commands;
}

/** The body rows of the first table after `heading` (a whole heading line), cells trimmed. */
export function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.split("\n").indexOf(heading);
  if (start === -1) throw new Error(`no heading ${heading}`);
  const lines = markdown.split("\n").slice(start + 1);
  const first = lines.findIndex((line) => line.startsWith("|"));
  const end = lines.findIndex((line, index) => index > first && !line.startsWith("|"));
  return lines.slice(first + 2, end).map(cellsOf);
}

function cellsOf(row: string): string[] {
  return row
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

const DURATION = /\b\d+(\.\d+)?(ms|s)\b|\b\d+m\d+s\b/g;

/**
 * Output as the docs show it and as a run prints it, made comparable: durations become `D`, and
 * table rows lose their padding (which follows the durations' widths).
 */
export function comparableOutput(text: string): string[] {
  return text
    .replace(DURATION, "D")
    .split("\n")
    .map((line) => (line.startsWith("|") ? cellsOf(line).join(" | ") : line.trimEnd()));
}

/** How a shell script ended and what it printed. */
export type ShellRun = { code: number | null; stdout: string; stderr: string };

/**
 * A throw-away copy of what the docs' commands use (tasks/, fixtures/, schema/, the built bin/ and
 * dist/ and node_modules/ linked), with `agent-run` on PATH as `npm install -g .` would put it,
 * and no API key.
 */
export type DocSandbox = AsyncDisposable & {
  root: string;
  /** Runs `script` with bash in `root` (or `cwd` under it); `env` adds to the sandbox's. */
  sh(script: string, env?: Record<string, string>, cwd?: string): Promise<ShellRun>;
  /** Starts `script` like `sh`, giving its process id before it ends. */
  start(script: string): { pid: number | undefined; done: Promise<ShellRun> };
};

/** Makes a DocSandbox in the system's temporary folder; dispose of it to remove it. */
export async function docSandbox(): Promise<DocSandbox> {
  const root = await mkdtemp(join(tmpdir(), "agent-run-docs-"));
  for (const folder of ["tasks", "fixtures", "schema"]) {
    await cp(folder, join(root, folder), { recursive: true });
  }
  // node_modules as `npm ci` leaves it: the example MCP server imports the MCP SDK.
  for (const built of ["bin", "dist", "package.json", "node_modules"])
    await symlink(resolve(built), join(root, built));
  const pathDir = join(root, ".path");
  await mkdir(pathDir);
  await mkdir(join(root, ".tmp"));
  const shim = join(pathDir, "agent-run");
  await writeFile(
    shim,
    `#!/bin/sh\nexec "${process.execPath}" "${resolve("bin/agent-run.js")}" "$@"\n`,
  );
  await chmod(shim, 0o755);
  const baseEnv = {
    PATH: `${pathDir}:${process.env.PATH ?? ""}`,
    HOME: process.env.HOME ?? "",
    TMPDIR: join(root, ".tmp"),
    CI: "true",
  };
  return {
    root,
    sh: (script, env = {}, cwd = root) => runShell(script, { ...baseEnv, ...env }, cwd).done,
    start: (script) => runShell(script, baseEnv, root),
    [Symbol.asyncDispose]: () => rm(root, { recursive: true, force: true }),
  };
}

function runShell(
  script: string,
  env: Record<string, string>,
  cwd: string,
): { pid: number | undefined; done: Promise<ShellRun> } {
  const child = spawn("bash", ["-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<ShellRun>((resolveRun) =>
    child.on("close", (code) => resolveRun({ code, stdout, stderr })),
  );
  return { pid: child.pid, done };
}

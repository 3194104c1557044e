/** Operator and environment failures: the only exceptions `cli/main.ts` catches and maps to exit codes. */
export class AgentRunError extends Error {
  readonly code: string;
  readonly exitCode: number;

  constructor(message: string, opts: { code: string; exitCode: number; cause?: unknown }) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = opts.code;
    this.exitCode = opts.exitCode;
  }
}

/** One problem in a task file, located so an editor can jump to it. */
export type TaskFileProblem = {
  file: string;
  line: number;
  column: number;
  /** Dotted path of the field (`limits.max_steps`), empty for the whole document. */
  path: string;
  message: string;
};

/** Renders a problem as `file:line:col: path: message`, the shape compilers and editors understand. */
export function formatProblem(problem: TaskFileProblem): string {
  const where = `${problem.file}:${problem.line}:${problem.column}`;
  return problem.path === ""
    ? `${where}: ${problem.message}`
    : `${where}: ${problem.path}: ${problem.message}`;
}

/** Bad task files (or replies files): every problem of the batch, reported together; exit 2. */
export class TaskFileError extends AgentRunError {
  readonly problems: TaskFileProblem[];

  constructor(problems: TaskFileProblem[]) {
    super(problems.map(formatProblem).join("\n"), { code: "task_file", exitCode: 2 });
    this.problems = problems;
  }
}

/** Bad command line or environment (missing API key, unwritable --out); exit 2. */
export class ConfigError extends AgentRunError {
  constructor(message: string, cause?: unknown) {
    super(message, { code: "config", exitCode: 2, cause });
  }
}

/** A transcript that cannot be read or written; exit 2. */
export class TranscriptError extends AgentRunError {
  constructor(message: string, cause?: unknown) {
    super(message, { code: "transcript", exitCode: 2, cause });
  }
}

/** The message of anything thrown, for wrapping into a clearer error. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether `error` is an Error whose `code` (a Node system error's, say `ENOENT`) is one of `codes`. */
export function hasErrorCode(error: unknown, ...codes: readonly string[]): boolean {
  return error instanceof Error && "code" in error && codes.some((code) => error.code === code);
}

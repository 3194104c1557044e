/** Exit codes, in one place; README's table mirrors it (a test compares them). */
export const EXIT = {
  ok: 0,
  taskFailed: 1,
  usage: 2,
  internal: 3,
  sighup: 129,
  sigint: 130,
  sigterm: 143,
} as const;

/** One row of a command's exit-code list in its `--help`: the codes, and when it exits with them. */
export type ExitCodeRow = readonly [codes: readonly number[], meaning: string];

/** A bug in agent-run: every command's row. */
export const INTERNAL_EXIT_ROW: ExitCodeRow = [
  [EXIT.internal],
  "internal error in agent-run (a bug; please report it)",
];

/** The rows every command that runs tasks shares: an internal error, and a signal. */
export const COMMON_EXIT_ROWS: readonly ExitCodeRow[] = [
  INTERNAL_EXIT_ROW,
  [
    [EXIT.sighup, EXIT.sigint, EXIT.sigterm],
    "interrupted (SIGHUP/SIGINT/SIGTERM): tasks cancelled, their outputs written",
  ],
];

/** The rows as the epilogue of a `--help`, one code per line. */
export function describeExitCodes(rows: readonly ExitCodeRow[]): string {
  const labels = rows.map(([codes]) => codes.join("/"));
  const width = Math.max(...labels.map((label) => label.length));
  const lines = rows.map(
    ([, meaning], index) => `  ${(labels[index] ?? "").padEnd(width)}  ${meaning}`,
  );
  return ["Exit codes:", ...lines].join("\n");
}

// How the GitHub Actions runner reads a step's output (actions/runner: ProcessInvoker reads lines
// with TextReader.ReadLine; ActionCommand.TryParseV2 and TryParse), written out independently of
// agent-run's own code so tests check its output against the runner, not against itself.

/** The lines as the runner sees them: `ReadLine` ends a line at `\r`, `\n` or `\r\n`. */
export function runnerLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/**
 * True when the runner would process `line` as a workflow command: `::` at its start after .NET's
 * `TrimStart()` (which also trims U+0085, unlike JavaScript's `\s`), or the legacy `##[` anywhere.
 */
export function isRunnerCommand(line: string): boolean {
  return /^[\s\u0085]*::/.test(line) || line.includes("##[");
}

/** The lines of `text` the runner would read as workflow commands. */
export function commandLines(text: string): string[] {
  return runnerLines(text).filter(isRunnerCommand);
}

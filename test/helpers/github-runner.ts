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

/**
 * The outputs a step's `$GITHUB_OUTPUT` file sets, as the runner reads it on Linux (actions/runner,
 * FileCommandManager.cs: `EnvFileKeyValuePairs` and its `ReadLine`, which ends a line at `\n`
 * only): `NAME=VALUE` when the first `=` comes before any `<<`, else `NAME<<DELIMITER` with the
 * lines up to the delimiter; anything else fails the step (thrown here). A later value wins.
 */
export function runnerOutputs(text: string): Map<string, string> {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const outputs = new Map<string, string>();
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? "";
    if (line === "") continue;
    const equals = line.indexOf("=");
    const heredoc = line.indexOf("<<");
    if (equals >= 0 && (heredoc < 0 || equals < heredoc)) {
      outputs.set(line.slice(0, equals), line.slice(equals + 1));
      continue;
    }
    if (heredoc < 0) throw new Error(`Invalid format '${line}'`);
    const delimiter = line.slice(heredoc + 2);
    const end = lines.indexOf(delimiter, index + 1);
    if (end < 0) throw new Error(`Matching delimiter not found '${delimiter}'`);
    outputs.set(line.slice(0, heredoc), lines.slice(index + 1, end).join("\n"));
    index = end;
  }
  return outputs;
}

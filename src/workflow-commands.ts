// GitHub's workflow commands (`::error file=…::message`), which the runner reads from any line a
// step prints: the syntax of our own, and the escaping that keeps every other line from being one.

import { showControls } from "./format.js";

/**
 * The runner's rules (actions/runner, ActionCommand.cs): a line whose start, after .NET's
 * `TrimStart()`, is `::` is a command, and so is any line holding `##[` (the legacy form, matched
 * anywhere). Lines end at `\r`, `\n` or `\r\n` (`TextReader.ReadLine`). JavaScript's `\s` covers
 * every character `TrimStart()` removes except U+0085, which is added.
 */
const COMMAND_LINE_START = /^([\s\u0085]*)::/gm;
const LEGACY_COMMAND = "##[";

/** Invisible, and not white space to .NET, so a line starting with it is not trimmed to `::`. */
const ZERO_WIDTH_SPACE = "\u200b";

/**
 * Text that is not one of agent-run's own commands, made inert for the runner: a zero-width space
 * before a line's leading `::` and inside every `##[`. Nothing else changes, so a terminal shows
 * the same text. Every line agent-run prints on stdout or stderr passes through here (`cli/io.ts`).
 */
export function neutraliseCommands(text: string): string {
  return text
    .replace(COMMAND_LINE_START, `$1${ZERO_WIDTH_SPACE}::`)
    .replaceAll(LEGACY_COMMAND, `##${ZERO_WIDTH_SPACE}[`);
}

/**
 * Escapes a workflow command's message (GitHub's `escapeData`), then shows every other control
 * character as the log does (`\x1b`), so an annotation never carries a terminal's escapes or bells.
 */
function escapeData(text: string): string {
  return showControls(text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A"));
}

/** Escapes a workflow command's property value (GitHub's `escapeProperty`). */
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * One workflow command line (`::error file=a.yaml,line=3::message`), every property and the message
 * escaped, so nothing in them ends the line or starts another command (a `##[` in them is broken
 * up too, in case the runner ever falls back to the legacy form for the line).
 */
export function workflowCommand(
  name: string,
  properties: Readonly<Record<string, string | number>>,
  message: string,
): string {
  const props = Object.entries(properties)
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`)
    .join(",");
  const line = `::${name}${props === "" ? "" : ` ${props}`}::${escapeData(message)}`;
  return line.replaceAll(LEGACY_COMMAND, `##${ZERO_WIDTH_SPACE}[`);
}

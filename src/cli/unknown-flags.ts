/* Unknown flags, found before yargs parses: it would read `--ofline x.yaml` as a flag with a value. */
import { existsSync } from "node:fs";
import type { Options } from "yargs";
import { closestName } from "../closest-name.js";
import { ConfigError } from "../errors.js";

/** What this check needs of a command: its name for the help hint, and its flag table. */
type FlagTable = { name: string; flags: Readonly<Record<string, Options>> };

/** Flags yargs adds to every command. */
const BUILT_IN_FLAGS: Readonly<Record<string, Options>> = {
  help: { type: "boolean", alias: "h" },
  version: { type: "boolean" },
};

/**
 * Throws a `ConfigError` (exit 2) naming the first flag of `argv` that `command` (picked by its
 * name among the positionals, `fallback` otherwise) does not have, with the closest flag it does.
 */
export function refuseUnknownFlags(
  argv: readonly string[],
  commands: readonly FlagTable[],
  fallback: FlagTable,
): void {
  let command = fallback;
  let known = knownFlags(command);
  let takesValue = false;
  let hasPositional = false;
  for (const arg of argv) {
    if (arg === "--") return;
    if (takesValue) {
      takesValue = false;
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") {
      const named = hasPositional ? undefined : commands.find((table) => table.name === arg);
      if (named !== undefined) {
        command = named;
        known = knownFlags(named);
      }
      hasPositional = true;
      continue;
    }
    const name = flagName(arg);
    const flag = known.get(name) ?? known.get(name.replace(/^no-/, ""));
    if (flag === undefined) throw unknownFlag(arg, name, command, commands);
    takesValue = flag.type !== "boolean" && !arg.includes("=");
  }
}

/** `--max-steps=3` → `max-steps`, `-j` → `j`. Grouped short flags (`-vh`) are left to yargs. */
function flagName(arg: string): string {
  const bare = arg.replace(/^--?/, "");
  const equals = bare.indexOf("=");
  return equals === -1 ? bare : bare.slice(0, equals);
}

/** Every spelling yargs accepts: the name, its aliases, and the camelCase of a kebab-case name. */
function knownFlags(command: FlagTable): Map<string, Options> {
  const known = new Map<string, Options>();
  for (const [name, options] of Object.entries({ ...command.flags, ...BUILT_IN_FLAGS })) {
    known.set(name, options);
    known.set(
      name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()),
      options,
    );
    for (const alias of [options.alias ?? []].flat()) known.set(alias, options);
  }
  return known;
}

/** The message: the closest flag of this command, else the command that has this flag. */
function unknownFlag(
  arg: string,
  name: string,
  command: FlagTable,
  commands: readonly FlagTable[],
): ConfigError {
  const longNames = Object.keys({ ...command.flags, ...BUILT_IN_FLAGS });
  const guess = name.length > 1 ? closestName(name, longNames) : undefined;
  const elsewhere = commands.find(
    (other) => other.name !== command.name && knownFlags(other).has(name),
  );
  const shown = arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg;
  const hint =
    guess !== undefined
      ? ` (did you mean --${guess}?)`
      : elsewhere !== undefined
        ? ` (it is a flag of 'agent-run ${elsewhere.name}')`
        : "";
  return new ConfigError(
    `unknown flag ${shown}${hint}; 'agent-run ${command.name} --help' lists the flags of ${command.name}`,
  );
}

/**
 * `agent-run resme out` would look for a task file named `resme`: when the first word is no file,
 * has no path or glob characters and is close to a command's name, say which command was meant.
 */
export function refuseMisspeltCommand(argv: readonly string[], names: readonly string[]): void {
  const first = argv[0];
  if (first === undefined || first.startsWith("-") || names.includes(first)) return;
  if ([..."./\\*?[{"].some((char) => first.includes(char))) return;
  const guess = closestName(first, names);
  if (guess === undefined || existsSync(first)) return;
  throw new ConfigError(
    `"${first}" is not a command or a task file (did you mean 'agent-run ${guess}'?); 'agent-run --help' lists the commands`,
  );
}

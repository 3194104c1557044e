/**
 * Which commands the bash tool may run. A guard-rail against obvious accidents, not a security
 * boundary: a determined command gets past any pattern (`eval`, scripts, base64), so the sandbox
 * is the boundary.
 */
export type CommandPolicy = {
  /** The task's `bash.allow` globs; when any are given (here or by flag), a command must match one. */
  allow: readonly string[];
  /** The task's `bash.deny` globs; a command matching any of them is refused. */
  deny: readonly string[];
  /** `--bash-allow` globs, kept apart so a refusal can say where its rule came from. */
  flagAllow?: readonly string[] | undefined;
  /** `--bash-deny` globs. */
  flagDeny?: readonly string[] | undefined;
};

/** Whether a command may run; a refusal names the rule and where it came from, in words the model can pass on. */
export type PolicyVerdict = { allowed: true } | { allowed: false; rule: string };

/** A built-in rule: always on, whatever the task's patterns say. */
export type BuiltInRule = { name: string; reason: string; pattern: RegExp };

/** Where a command word can start: the start, after `;`, `&`, `|`, `(`, `{`, `!`, a backquote or `$(`. */
const START = String.raw`(?:^|[;&|({!\x60\n]|\$\()\s*`;

/**
 * A word's characters, at most 128: every repetition here is bounded, so a command of many
 * thousand characters is checked in time linear in its length (an unbounded `\S*` after each of
 * thousands of `;` made it quadratic: 5 s for 30,000 `;`).
 */
const WORD = String.raw`\S{0,128}`;

/**
 * Words that may precede the command word: assignments, options, counts, wrappers (`env`, `nohup`,
 * `xargs`...) and `sh -c "`.
 */
const PREFIX = String.raw`(?:(?:[A-Za-z_]\w{0,64}=${WORD}|-${WORD}|\d${WORD}|env|exec|nohup|time|nice|timeout|xargs|eval|then|do|else|elif)\s+|(?:${WORD}/)?(?:ba|da|z|k)?sh\s+-c\s+)*`;

/** The rest of one simple command: up to the next `;`, `&`, `|` or newline. */
const ARGS = String.raw`[^;&|\n]*`;

/** Matches `name` (a regex source) as a command word, also called by path (`/usr/bin/sudo`) or `\name`. */
function commandWord(name: string, args = ""): RegExp {
  return new RegExp(
    `${START}${PREFIX}["']?(?:${WORD}/)?\\\\?(?:${name})["']?(?=$|[\\s;&|)])${args}`,
  );
}

/** Raw block devices: disks, partitions, device-mapper and loop devices. */
const RAW_DEVICE = String.raw`/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk|md\d|dm-\d|mapper/|loop\d)`;

/** `/`, `/*`, `~`, `~/`, `~/*`, `$HOME`, `${HOME}`, `$HOME/*`, quoted or not, as a whole word. */
const ROOT_OR_HOME = String.raw`\s["']?(?:/+\*?|/+\.|~/?\*?|\$\{?HOME\}?/?\*?)["']?(?=$|[\s;&|)])`;

/** The destructive commands refused by default, in the order they are checked. */
export const BUILT_IN_RULES: readonly BuiltInRule[] = [
  {
    name: "sudo",
    reason: "commands run without root",
    pattern: commandWord("sudo|doas"),
  },
  {
    name: "shutdown",
    reason: "commands must not shut down or restart the machine",
    pattern: commandWord(
      "shutdown|reboot|halt|poweroff|(?:tel)?init\\s+[06]|systemctl\\s+(?:poweroff|reboot|halt|kexec)",
    ),
  },
  {
    name: "mkfs",
    reason: "commands must not format file systems",
    pattern: commandWord("mkfs[\\w.]*|mke2fs|mkswap|wipefs"),
  },
  {
    name: "dd-to-device",
    reason: "commands must not write to devices with dd",
    pattern: commandWord(
      "dd",
      String.raw`${ARGS}\sof=["']?/dev/(?!(?:null|zero|stdout|stderr|tty)(?=$|[\s;&|)"'])|fd/)`,
    ),
  },
  {
    name: "raw-device",
    reason: "commands must not write to raw disk devices",
    // A redirect (`>`, `>>`, `>|`, `&>`) or `tee` to the device; dd has its own rule.
    pattern: new RegExp(String.raw`(?:>\|?\s*|(?:^|[\s;&|(])tee\s+(?:-\S+\s+)*)["']?${RAW_DEVICE}`),
  },
  {
    name: "rm-root",
    reason: "commands must not delete / or the home folder",
    pattern: commandWord(
      "rm",
      // A recursive flag (-r, -R, -rf, -fr, --recursive) and `/` or home as an operand, in any order.
      String.raw`(?=${ARGS}\s(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)(?=$|[\s;&|)]))(?=${ARGS}${ROOT_OR_HOME})`,
    ),
  },
  {
    name: "fork-bomb",
    reason: "commands must not start a fork bomb",
    pattern: /(?:^|[\s;&|({])(?:function\s+)?([\w:.-]+)\s*(?:\(\s*\)\s*)?\{\s*\1\s*\|\s*\1\s*&/,
  },
];

/**
 * Checks a command (trimmed) against the built-in rules, then the task's deny patterns, then its
 * allow patterns (when there are any). Patterns are case-sensitive globs over the whole command:
 * `*` matches anything (spaces and `/` too), `?` one character.
 */
export function checkCommand(command: string, policy?: CommandPolicy): PolicyVerdict {
  const line = command.trim();
  const code = stripLiteralHeredocs(line);
  for (const rule of BUILT_IN_RULES) {
    if (rule.pattern.test(code))
      return {
        allowed: false,
        rule: `agent-run's built-in rule "${rule.name}" (${rule.reason}; no setting turns it off)`,
      };
  }
  const denied = policy?.deny.find((pattern) => matchesGlob(line, pattern));
  if (denied !== undefined) {
    return { allowed: false, rule: `the pattern ${quote(denied)} in the task's bash.deny` };
  }
  const flagDenied = policy?.flagDeny?.find((pattern) => matchesGlob(line, pattern));
  if (flagDenied !== undefined) {
    return { allowed: false, rule: `the pattern ${quote(flagDenied)} given by --bash-deny` };
  }
  const allow = [...(policy?.allow ?? []), ...(policy?.flagAllow ?? [])];
  if (allow.length > 0 && !allow.some((pattern) => matchesGlob(line, pattern))) {
    return {
      allowed: false,
      rule: describeAllowList(policy?.allow ?? [], policy?.flagAllow ?? []),
    };
  }
  return { allowed: true };
}

/** Most allow patterns quoted back to the model in a refusal. */
const MAX_QUOTED_PATTERNS = 10;

/** `the allow list: it matches no pattern of the task's bash.allow ("npm *") or --bash-allow ("git *")`. */
function describeAllowList(fromTask: readonly string[], fromFlags: readonly string[]): string {
  const lists = [
    fromTask.length > 0 ? `the task's bash.allow (${quoteList(fromTask)})` : undefined,
    fromFlags.length > 0 ? `--bash-allow (${quoteList(fromFlags)})` : undefined,
  ].filter((list) => list !== undefined);
  return `the allow list: it matches no pattern of ${lists.join(" or ")}`;
}

function quoteList(patterns: readonly string[]): string {
  const shown = patterns.slice(0, MAX_QUOTED_PATTERNS).map(quote).join(", ");
  const more = patterns.length - MAX_QUOTED_PATTERNS;
  return more > 0 ? `${shown} and ${more} more` : shown;
}

/** A pattern quoted back, bounded: a task's pattern may be long. */
function quote(pattern: string): string {
  return JSON.stringify(pattern.length > 200 ? `${pattern.slice(0, 199)}…` : pattern);
}

/** A here-document with a quoted delimiter (`<<'EOF'`, `<<-"END"`): its body is literal text. */
const LITERAL_HEREDOC = /<<(-?)\s*(['"])([\w.-]+)\2/g;

/**
 * Drops the bodies of quoted here-documents, which the shell never runs, so a script or README
 * written with `cat > x <<'EOF'` may mention `sudo`. Unquoted ones stay: `$(...)` runs in them.
 */
function stripLiteralHeredocs(command: string): string {
  const lines = command.split("\n");
  const kept: string[] = [];
  let delimiters: Array<{ word: string; allowsTabs: boolean }> = [];
  for (const line of lines) {
    const open = delimiters[0];
    if (open !== undefined) {
      const isEnd = (open.allowsTabs ? line.replace(/^\t+/, "") : line) === open.word;
      if (isEnd) delimiters = delimiters.slice(1);
      continue;
    }
    kept.push(line);
    delimiters = Array.from(line.matchAll(LITERAL_HEREDOC), (match) => ({
      word: match[3] ?? "",
      allowsTabs: match[1] === "-",
    }));
  }
  return kept.join("\n");
}

/**
 * The tool error for a refused command (`toolName`: bash, or the command tool that runs it). The
 * run is unattended: there is nobody to ask, so the model is told to work around it or report the
 * need in its final reply.
 */
export function describeRefusal(rule: string, toolName = "bash"): string {
  return `${toolName}: refused by ${rule}. Nobody is there to ask: this run is unattended. Do the task another way, or say in your final reply that it needs this command`;
}

/**
 * Whether the whole of `text` matches the glob `pattern` (`*` anything, `?` one character, the rest
 * literally). Greedy with backtracking to the last `*` only: O(text × pattern) at worst, where a
 * regex would backtrack exponentially on patterns like `*a*b*c*`.
 */
export function matchesGlob(text: string, pattern: string): boolean {
  const chars = Array.from(text);
  const glob = Array.from(pattern);
  let t = 0;
  let g = 0;
  let lastStar = -1;
  let resumeAt = 0;
  while (t < chars.length) {
    if (g < glob.length && (glob[g] === "?" || (glob[g] !== "*" && glob[g] === chars[t]))) {
      t += 1;
      g += 1;
    } else if (g < glob.length && glob[g] === "*") {
      lastStar = g;
      resumeAt = t;
      g += 1;
    } else if (lastStar >= 0) {
      resumeAt += 1;
      t = resumeAt;
      g = lastStar + 1;
    } else {
      return false;
    }
  }
  while (glob[g] === "*") g += 1;
  return g === glob.length;
}

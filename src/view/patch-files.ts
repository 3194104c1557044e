/** One file's part of a git patch: its path, what the headers say, and its diff lines. */
export type PatchFile = {
  path: string;
  status: "added" | "modified" | "deleted";
  binary: boolean;
  mode: { before: string; after: string } | null;
  lines: string[];
};

/**
 * Splits `changes.patch` (git's format, as agent-run writes it) into files. The text is hostile
 * and may be cut anywhere: anything before the first `diff --git` line is ignored, each line is
 * cut to `maxLineChars`, and a file whose hunks were cut off simply has fewer lines.
 */
export function splitPatch(text: string, maxLineChars: number): PatchFile[] {
  const files: PatchFile[] = [];
  let file: PatchFile | undefined;
  let isInHunks = false;
  for (const raw of text.split("\n")) {
    const line = raw.length > maxLineChars ? `${raw.slice(0, maxLineChars)}…` : raw;
    if (raw.startsWith("diff --git ")) {
      file = {
        path: headerPath(raw.slice("diff --git ".length)),
        status: "modified",
        binary: false,
        mode: null,
        lines: [],
      };
      files.push(file);
      isInHunks = false;
      continue;
    }
    if (file === undefined) continue;
    if (isInHunks || raw.startsWith("@@")) {
      isInHunks = true;
      if (/^[-+ @\\]/.test(raw)) file.lines.push(line);
      continue;
    }
    readHeaderLine(raw, file);
  }
  return files;
}

/** One line of a file's header (before its first hunk). */
function readHeaderLine(line: string, file: PatchFile): void {
  const mode = /^(old|new|new file|deleted file) mode (\d+)$/.exec(line);
  if (mode !== null) {
    const [, which, value = ""] = mode;
    if (which === "new file") file.status = "added";
    else if (which === "deleted file") file.status = "deleted";
    else if (which === "old") file.mode = { before: value, after: value };
    else if (file.mode !== null) file.mode = { before: file.mode.before, after: value };
  } else if (line.startsWith("Binary files ") || line === "GIT binary patch") {
    file.binary = true;
  } else if (line.startsWith("+++ ") && line !== "+++ /dev/null") {
    file.path = markerPath(line).replace(/^b\//, "");
  } else if (line.startsWith("--- ") && file.status === "deleted") {
    file.path = markerPath(line).replace(/^a\//, "");
  }
}

/** The path of a `---` or `+++` line; git ends it with a tab when it holds a space. */
function markerPath(line: string): string {
  const path = line.slice(4);
  return unquote(path.endsWith("\t") ? path.slice(0, -1) : path);
}

/** The path of a `diff --git a/P b/P` header (the same path twice: agent-run's patches have no renames). */
function headerPath(rest: string): string {
  if (rest.startsWith('"')) {
    const end = closingQuote(rest);
    return unquote(rest.slice(0, end + 1)).replace(/^a\//, "");
  }
  const half = (rest.length - 1) / 2;
  return rest.slice(0, Math.max(0, Math.floor(half))).replace(/^a\//, "");
}

function closingQuote(text: string): number {
  for (let index = 1; index < text.length; index += 1) {
    if (text[index] === "\\") index += 1;
    else if (text[index] === '"') return index;
  }
  return text.length - 1;
}

const ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 34,
  "\\": 92,
};

/** A path as git wrote it: C-quoted (`"a/s\303\251"`, octal bytes of UTF-8) or plain. */
function unquote(path: string): string {
  if (!path.startsWith('"') || !path.endsWith('"') || path.length < 2) return path;
  const bytes: number[] = [];
  const body = path.slice(1, -1);
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index] ?? "";
    if (char !== "\\") {
      bytes.push(...Buffer.from(char));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(index + 1));
    if (octal !== null) {
      bytes.push(Number.parseInt(octal[0], 8) & 0xff);
      index += 3;
    } else {
      const next = body[index + 1] ?? "";
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
      index += 1;
    }
  }
  return new TextDecoder().decode(Uint8Array.from(bytes));
}

import { z } from "zod";
import type { FileToolOptions } from "./confined-open.js";
import { defineTool, type Tool, ToolError } from "./define-tool.js";
import { MAX_TEXT_FILE_BYTES, readTextFile } from "./text-file.js";
import { MAX_LINE_CHARS, truncateLine } from "./truncate.js";

/** Most lines one read_file call returns; the model pages through longer files with `offset`. */
export const MAX_READ_LINES = 2_000;

/** Most characters one read_file call returns (~100 KB), whatever the line count. */
export const MAX_READ_CHARS = 100_000;

const ReadFileInputSchema = z
  .object({
    path: z
      .string()
      .min(1)
      .describe("File to read, relative to the workspace root (e.g. src/index.ts)."),
    offset: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("1-based number of the first line to return. Default: 1."),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`Number of lines to return. Default and maximum: ${MAX_READ_LINES}.`),
  })
  .strict();

const DESCRIPTION = [
  "Read a UTF-8 text file in the workspace and return its contents as they are (no line numbers).",
  `At most ${MAX_READ_LINES} lines or ${MAX_READ_CHARS} characters come back per call, and lines`,
  `longer than ${MAX_LINE_CHARS} characters are shortened; when more is left, a note at the end says which line`,
  "to pass as `offset` to continue. Use `offset` and `limit` to read one part of a large file.",
  `Binary files, directories and files over ${MAX_TEXT_FILE_BYTES / 1024 / 1024} MB are refused (use list_files or bash instead).`,
].join(" ");

/** The read_file tool: the model's way to look at files without shelling out to cat. */
export function createReadFileTool(options: FileToolOptions = {}): Tool {
  return defineTool({
    name: "read_file",
    description: DESCRIPTION,
    input: ReadFileInputSchema,
    async run(input, ctx) {
      const { text, shown } = await readTextFile(
        { ...options, root: ctx.workspaceRoot },
        input.path,
      );
      return { content: selectLines(text, shown, input.offset ?? 1, input.limit), isError: false };
    },
  });
}

/** Picks lines `first`… within the caps and adds a note telling the model how to read on. */
function selectLines(
  text: string,
  shown: string,
  first: number,
  limit: number | undefined,
): string {
  if (text === "") return "(empty file)";
  const lines = splitLines(text);
  if (first > lines.length) {
    throw new ToolError(
      `offset ${first} is past the end of "${shown}", which has ${lines.length} lines`,
    );
  }
  const wanted = Math.min(limit ?? MAX_READ_LINES, MAX_READ_LINES, lines.length - first + 1);
  const picked: string[] = [];
  let chars = 0;
  for (const line of lines.slice(first - 1, first - 1 + wanted)) {
    const kept = truncateLine(line);
    if (picked.length > 0 && chars + kept.length + 1 > MAX_READ_CHARS) break;
    picked.push(kept);
    chars += kept.length + 1;
  }
  const last = first + picked.length - 1;
  const left = lines.length - last;
  if (left === 0) return picked.join("\n");
  const capped =
    picked.length < (limit ?? Number.POSITIVE_INFINITY) ? " (output limit reached)" : "";
  const note = `[showing lines ${first}-${last} of ${lines.length}${capped}; ${left} more lines; call read_file with offset=${last + 1} to continue]`;
  return `${picked.join("\n")}\n\n${note}`;
}

/** Splits on `\n`; a final newline ends the last line rather than starting an empty one. */
function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

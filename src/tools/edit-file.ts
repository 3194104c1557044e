import { z } from "zod";
import type { FileToolOptions } from "./confined-open.js";
import { defineTool, type Tool, ToolError } from "./define-tool.js";
import { describeLineCount, editTextFile } from "./text-file.js";

const EditFileInputSchema = z
  .object({
    path: z.string().min(1).describe("File to edit, relative to the workspace root."),
    old_text: z
      .string()
      .describe(
        "Exact text to replace, including whitespace and indentation. It must occur exactly once in the file.",
      ),
    new_text: z.string().describe("Text to put in its place (may be empty to delete old_text)."),
  })
  .strict();

const DESCRIPTION = [
  "Replace one exact occurrence of old_text with new_text in an existing file.",
  "old_text must match the file character for character (whitespace and indentation included) and",
  "occur exactly once; if it occurs several times, include more surrounding lines to make it unique.",
  "Read the file with read_file first. To create a file or rewrite it entirely, use write_file.",
].join(" ");

/** The edit_file tool: small exact-match edits, cheaper and safer than rewriting a whole file. */
export function createEditFileTool(options: FileToolOptions = {}): Tool {
  return defineTool({
    name: "edit_file",
    description: DESCRIPTION,
    input: EditFileInputSchema,
    async run(input, ctx) {
      if (input.old_text === "") {
        throw new ToolError(
          "edit_file: old_text is empty; give the exact text to replace, or use write_file to create a file",
        );
      }
      if (input.old_text === input.new_text) {
        throw new ToolError(
          "edit_file: old_text and new_text are identical, so nothing would change",
        );
      }
      let line = 0;
      const scope = { ...options, root: ctx.workspaceRoot };
      const shown = await editTextFile(scope, input.path, (before, shown) => {
        const at = findUniqueMatch(before, input.old_text, shown);
        line = before.slice(0, at).split("\n").length;
        return before.slice(0, at) + input.new_text + before.slice(at + input.old_text.length);
      });
      return {
        content: `edited ${shown}: replaced ${describeLineCount(input.old_text)} with ${describeLineCount(input.new_text)} at line ${line}`,
        isError: false,
      };
    },
  });
}

/** Index of the only occurrence of `needle`; a `ToolError` telling the model what to do otherwise. */
function findUniqueMatch(haystack: string, needle: string, shown: string): number {
  const at = haystack.indexOf(needle);
  if (at === -1) {
    const hint =
      haystack.includes("\r\n") && !needle.includes("\r\n")
        ? " (the file has Windows line endings, \\r\\n)"
        : "";
    throw new ToolError(
      `edit_file: old_text was not found in ${shown}${hint}; read_file it again and copy the text exactly, including whitespace`,
    );
  }
  const count = haystack.split(needle).length - 1;
  if (count > 1) {
    throw new ToolError(
      `edit_file: old_text occurs ${count} times in ${shown}; include more surrounding lines in old_text so it matches exactly once`,
    );
  }
  return at;
}

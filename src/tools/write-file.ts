import { z } from "zod";
import type { FileToolOptions } from "./confined-open.js";
import { defineTool, type Tool } from "./define-tool.js";
import { describeLineCount, writeTextFileAtomic } from "./text-file.js";

const WriteFileInputSchema = z
  .object({
    path: z
      .string()
      .min(1)
      .describe("File to write, relative to the workspace root (e.g. src/new-module.ts)."),
    content: z.string().describe("The complete new contents of the file."),
  })
  .strict();

const DESCRIPTION = [
  "Create a file, or replace an existing file's whole contents, in the workspace.",
  "Missing parent folders are created. The write is atomic: the file is either fully old or fully new.",
  "To change part of an existing file, prefer edit_file, which does not need the whole file re-sent.",
].join(" ");

/** The write_file tool: whole-file writes for new files and rewrites. */
export function createWriteFileTool(options: FileToolOptions = {}): Tool {
  return defineTool({
    name: "write_file",
    description: DESCRIPTION,
    input: WriteFileInputSchema,
    async run(input, ctx) {
      const scope = { ...options, root: ctx.workspaceRoot };
      const shown = await writeTextFileAtomic(scope, input.path, input.content);
      const bytes = Buffer.byteLength(input.content, "utf8");
      return {
        content: `wrote ${describeLineCount(input.content)} (${bytes} bytes) to ${shown}`,
        isError: false,
      };
    },
  });
}

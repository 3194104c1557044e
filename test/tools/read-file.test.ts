import { symlink } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { createReadFileTool, MAX_READ_CHARS, MAX_READ_LINES } from "../../src/tools/read-file.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const tool = createReadFileTool();
const ctxFor = (root: string) => ({ workspaceRoot: root, signal: new AbortController().signal });
const numbered = (count: number) =>
  `${Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n")}\n`;

describe("read_file", () => {
  test("returns the file's text as it is", async () => {
    await using ws = await tmpWorkspace({ files: { "src/a.ts": "const a = 1;\nexport { a };\n" } });

    const result = await tool.execute({ path: "src/a.ts" }, ctxFor(ws.root));

    expect(result).toEqual({ content: "const a = 1;\nexport { a };", isError: false });
  });

  test("offset and limit select lines and say how to continue", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": numbered(10) } });

    const result = await tool.execute({ path: "a.txt", offset: 3, limit: 2 }, ctxFor(ws.root));

    expect(result.content).toBe(
      "line 3\nline 4\n\n[showing lines 3-4 of 10; 6 more lines; call read_file with offset=5 to continue]",
    );
  });

  test("reading to the end adds no note", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": numbered(10) } });

    const result = await tool.execute({ path: "a.txt", offset: 9 }, ctxFor(ws.root));

    expect(result.content).toBe("line 9\nline 10");
  });

  test("caps long files by lines with a marker", async () => {
    await using ws = await tmpWorkspace({ files: { "big.txt": numbered(MAX_READ_LINES + 5) } });

    const result = await tool.execute({ path: "big.txt" }, ctxFor(ws.root));

    const lines = result.content.split("\n");
    expect(lines[MAX_READ_LINES - 1]).toBe(`line ${MAX_READ_LINES}`);
    expect(lines.at(-1)).toBe(
      `[showing lines 1-${MAX_READ_LINES} of ${MAX_READ_LINES + 5} (output limit reached); 5 more lines; call read_file with offset=${MAX_READ_LINES + 1} to continue]`,
    );
  });

  test("caps by characters and shortens very long lines", async () => {
    const line = "y".repeat(1_500);
    const count = Math.ceil(MAX_READ_CHARS / line.length) + 10;
    await using ws = await tmpWorkspace({
      files: { "wide.txt": `${line}\n`.repeat(count), "min.js": "z".repeat(5_000) },
    });

    const wide = await tool.execute({ path: "wide.txt" }, ctxFor(ws.root));
    const min = await tool.execute({ path: "min.js" }, ctxFor(ws.root));

    expect(wide.content.length).toBeLessThan(MAX_READ_CHARS + 200);
    expect(wide.content).toMatch(
      /\(output limit reached\); \d+ more lines; call read_file with offset=\d+/,
    );
    expect(min.content).toBe(`${"z".repeat(2_000)} [... line truncated, 3000 more characters]`);
  });

  test("says so for an empty file and an offset past the end", async () => {
    await using ws = await tmpWorkspace({ files: { "empty.txt": "", "a.txt": "one\n" } });

    const empty = await tool.execute({ path: "empty.txt" }, ctxFor(ws.root));

    expect(empty.content).toBe("(empty file)");
    await expect(tool.execute({ path: "a.txt", offset: 5 }, ctxFor(ws.root))).rejects.toThrow(
      'offset 5 is past the end of "a.txt", which has 1 lines',
    );
  });

  test("refuses binary files, directories and missing files", async () => {
    await using ws = await tmpWorkspace({
      files: { "img.png": new Uint8Array([137, 80, 0, 1]), "d/x": "" },
    });
    const ctx = ctxFor(ws.root);

    await expect(tool.execute({ path: "img.png" }, ctx)).rejects.toThrow(
      /"img.png" looks like a binary file/,
    );
    await expect(tool.execute({ path: "d" }, ctx)).rejects.toThrow(/"d" is a directory/);
    await expect(tool.execute({ path: "nope" }, ctx)).rejects.toThrow(/does not exist/);
  });

  test("refuses paths outside the workspace", async () => {
    await using ws = await tmpWorkspace();
    await using outside = await tmpWorkspace({ files: { "secret.txt": "s" } });
    await symlink(outside.root, ws.path("out"));
    const ctx = ctxFor(ws.root);

    await expect(tool.execute({ path: "../secret.txt" }, ctx)).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(tool.execute({ path: outside.path("secret.txt") }, ctx)).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(tool.execute({ path: "out/secret.txt" }, ctx)).rejects.toThrow(/symbolic link/);
  });

  test("rejects a bad offset as input the model can fix", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "x" } });

    const result = await tool.execute({ path: "a.txt", offset: 0 }, ctxFor(ws.root));

    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^read_file: "offset"/);
  });
});

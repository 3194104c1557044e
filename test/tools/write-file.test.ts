import { readFile, symlink } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { createWriteFileTool } from "../../src/tools/write-file.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const tool = createWriteFileTool();
const ctxFor = (root: string) => ({ workspaceRoot: root, signal: new AbortController().signal });

describe("write_file", () => {
  test("creates parent folders and reports lines and bytes", async () => {
    await using ws = await tmpWorkspace();

    const result = await tool.execute(
      { path: "src/deep/a.ts", content: "é\nb\n" },
      ctxFor(ws.root),
    );

    expect(result).toEqual({ content: "wrote 2 lines (5 bytes) to src/deep/a.ts", isError: false });
    expect(await readFile(ws.path("src/deep/a.ts"), "utf8")).toBe("é\nb\n");
  });

  test("replaces an existing file", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "old contents" } });

    await tool.execute({ path: "a.txt", content: "new" }, ctxFor(ws.root));

    expect(await readFile(ws.path("a.txt"), "utf8")).toBe("new");
  });

  test("writes through a symlinked folder that stays inside", async () => {
    await using ws = await tmpWorkspace({ files: { "real/.keep": "" } });
    await symlink(ws.path("real"), ws.path("alias"));

    const result = await tool.execute({ path: "alias/new.txt", content: "x" }, ctxFor(ws.root));

    expect(result.content).toBe("wrote 1 line (1 bytes) to real/new.txt");
    expect(await readFile(ws.path("real/new.txt"), "utf8")).toBe("x");
  });

  test("refuses paths outside the workspace and writes nothing there", async () => {
    await using ws = await tmpWorkspace();
    await using outside = await tmpWorkspace({ files: { "keep.txt": "original" } });
    await symlink(outside.root, ws.path("out"));
    const ctx = ctxFor(ws.root);

    await expect(tool.execute({ path: "../x.txt", content: "x" }, ctx)).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(
      tool.execute({ path: outside.path("keep.txt"), content: "x" }, ctx),
    ).rejects.toThrow(/outside the workspace/);
    await expect(tool.execute({ path: "out/new/x.txt", content: "x" }, ctx)).rejects.toThrow(
      /symbolic link/,
    );
    expect(await readFile(outside.path("keep.txt"), "utf8")).toBe("original");
  });

  test("refuses to overwrite a directory", async () => {
    await using ws = await tmpWorkspace({ files: { "d/x": "" } });

    await expect(tool.execute({ path: "d", content: "x" }, ctxFor(ws.root))).rejects.toThrow(
      /"d" is a directory/,
    );
  });

  test("reports a missing field to the model", async () => {
    await using ws = await tmpWorkspace();

    const result = await tool.execute({ path: "a.txt" }, ctxFor(ws.root));

    expect(result).toEqual({
      content: 'write_file: "content" is required; re-send the call with every required field.',
      isError: true,
    });
  });
});

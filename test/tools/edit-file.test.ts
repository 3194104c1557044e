import { readFile, symlink } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { createEditFileTool } from "../../src/tools/edit-file.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const tool = createEditFileTool();
const ctxFor = (root: string) => ({ workspaceRoot: root, signal: new AbortController().signal });

describe("edit_file", () => {
  test("replaces the one occurrence and confirms", async () => {
    await using ws = await tmpWorkspace({ files: { "a.ts": "one\ntwo\nthree\n" } });

    const result = await tool.execute(
      { path: "a.ts", old_text: "two\n", new_text: "2\n2.5\n" },
      ctxFor(ws.root),
    );

    expect(result).toEqual({
      content: "edited a.ts: replaced 1 line with 2 lines at line 2",
      isError: false,
    });
    expect(await readFile(ws.path("a.ts"), "utf8")).toBe("one\n2\n2.5\nthree\n");
  });

  test("inserts new_text literally, even with $ patterns", async () => {
    await using ws = await tmpWorkspace({ files: { "a.ts": "price = X;" } });

    await tool.execute({ path: "a.ts", old_text: "X", new_text: "$& $1 $$" }, ctxFor(ws.root));

    expect(await readFile(ws.path("a.ts"), "utf8")).toBe("price = $& $1 $$;");
  });

  test("says when old_text is not found and suggests read_file", async () => {
    await using ws = await tmpWorkspace({ files: { "a.ts": "hello" } });

    await expect(
      tool.execute({ path: "a.ts", old_text: "bye", new_text: "x" }, ctxFor(ws.root)),
    ).rejects.toThrow("edit_file: old_text was not found in a.ts; read_file it again");
  });

  test("mentions CRLF line endings when they explain a miss", async () => {
    await using ws = await tmpWorkspace({ files: { "a.ts": "a\r\nb\r\n" } });

    await expect(
      tool.execute({ path: "a.ts", old_text: "a\nb", new_text: "x" }, ctxFor(ws.root)),
    ).rejects.toThrow(/Windows line endings/);
  });

  test("refuses an ambiguous match, giving the count, and leaves the file alone", async () => {
    await using ws = await tmpWorkspace({ files: { "a.ts": "x = 1;\nx = 1;\nx = 1;\n" } });

    await expect(
      tool.execute({ path: "a.ts", old_text: "x = 1;", new_text: "x = 2;" }, ctxFor(ws.root)),
    ).rejects.toThrow(/occurs 3 times in a\.ts; include more surrounding lines/);
    expect(await readFile(ws.path("a.ts"), "utf8")).toBe("x = 1;\nx = 1;\nx = 1;\n");
  });

  test("refuses an empty old_text and a no-op edit", async () => {
    await using ws = await tmpWorkspace({ files: { "a.ts": "a" } });
    const ctx = ctxFor(ws.root);

    await expect(tool.execute({ path: "a.ts", old_text: "", new_text: "x" }, ctx)).rejects.toThrow(
      /old_text is empty/,
    );
    await expect(tool.execute({ path: "a.ts", old_text: "a", new_text: "a" }, ctx)).rejects.toThrow(
      /identical/,
    );
  });

  test("refuses missing files and paths outside the workspace", async () => {
    await using ws = await tmpWorkspace();
    await using outside = await tmpWorkspace({ files: { "o.txt": "keep" } });
    await symlink(outside.root, ws.path("out"));
    const ctx = ctxFor(ws.root);
    const edit = (path: string) => tool.execute({ path, old_text: "keep", new_text: "gone" }, ctx);

    await expect(edit("nope.ts")).rejects.toThrow(/does not exist/);
    await expect(edit("../o.txt")).rejects.toThrow(/outside the workspace/);
    await expect(edit(outside.path("o.txt"))).rejects.toThrow(/outside the workspace/);
    await expect(edit("out/o.txt")).rejects.toThrow(/symbolic link/);
    expect(await readFile(outside.path("o.txt"), "utf8")).toBe("keep");
  });
});

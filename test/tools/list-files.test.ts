import { execFileSync } from "node:child_process";
import { mkdir, symlink } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { createListFilesTool, MAX_LIST_ENTRIES } from "../../src/tools/list-files.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

const tool = createListFilesTool();
const ctxFor = (root: string) => ({ workspaceRoot: root, signal: new AbortController().signal });

describe("list_files", () => {
  test("lists the root sorted, marking folders, links and special files", async () => {
    await using ws = await tmpWorkspace({
      files: { "b.txt": "", "src/a.ts": "", ".env": "" },
      git: true,
    });
    await symlink("src", ws.path("link"));
    await symlink("missing", ws.path("broken"));
    execFileSync("mkfifo", [ws.path("pipe")]);

    const result = await tool.execute({}, ctxFor(ws.root));

    expect(result).toEqual({
      content: [
        ".env",
        ".git/",
        "b.txt",
        "broken -> missing (broken link)",
        "link -> src/",
        "pipe (fifo)",
        "src/",
      ].join("\n"),
      isError: false,
    });
  });

  test("lists a subfolder and says when it is empty", async () => {
    await using ws = await tmpWorkspace({ files: { "src/a.ts": "" } });
    await mkdir(ws.path("empty"));

    const src = await tool.execute({ path: "src" }, ctxFor(ws.root));
    const empty = await tool.execute({ path: "empty" }, ctxFor(ws.root));

    expect(src.content).toBe("a.ts");
    expect(empty.content).toBe("(empty is empty)");
  });

  test("caps the number of entries with a marker", async () => {
    const files = Object.fromEntries(
      Array.from({ length: MAX_LIST_ENTRIES + 3 }, (_, i) => [
        `f${String(i).padStart(5, "0")}`,
        "",
      ]),
    );
    await using ws = await tmpWorkspace({ files });

    const result = await tool.execute({}, ctxFor(ws.root));

    const lines = result.content.split("\n");
    expect(lines).toHaveLength(MAX_LIST_ENTRIES + 1);
    expect(lines.at(-1)).toBe("[... 3 more entries not shown; list a subfolder or use bash]");
  });

  test("explains a missing folder and a file given as a folder", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "" } });

    await expect(tool.execute({ path: "nope" }, ctxFor(ws.root))).rejects.toThrow(/does not exist/);
    await expect(tool.execute({ path: "a.txt" }, ctxFor(ws.root))).rejects.toThrow(/use read_file/);
  });

  test("refuses folders outside the workspace", async () => {
    await using ws = await tmpWorkspace();
    await using outside = await tmpWorkspace({ files: { "x.txt": "" } });
    await symlink(outside.root, ws.path("out"));
    const ctx = ctxFor(ws.root);

    await expect(tool.execute({ path: ".." }, ctx)).rejects.toThrow(/outside the workspace/);
    await expect(tool.execute({ path: outside.root }, ctx)).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(tool.execute({ path: "out" }, ctx)).rejects.toThrow(/symbolic link/);
  });
});

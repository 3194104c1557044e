import { readdir, readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { writeFileAtomic } from "../../src/fs/write-file-atomic.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

describe("writeFileAtomic", () => {
  test("writes the file whole, leaving no temporary file", async () => {
    await using ws = await tmpWorkspace();

    await writeFileAtomic(ws.path("out.txt"), "hello\n");

    await expect(readFile(ws.path("out.txt"), "utf8")).resolves.toBe("hello\n");
    await expect(readdir(ws.path("."))).resolves.toEqual(["out.txt"]);
  });

  test("a file that cannot be written: the error names it, not the temporary file", async () => {
    await using ws = await tmpWorkspace();
    const path = ws.path("missing-folder/view.html");

    await expect(writeFileAtomic(path, "x")).rejects.toThrow(
      `ENOENT: no such file or directory, open '${path}'`,
    );
    await expect(readdir(ws.path("."))).resolves.toEqual([]);
  });
});

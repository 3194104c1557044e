import { execFileSync } from "node:child_process";
import { chmod, readdir, readFile, stat } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { describeLineCount, readTextFile, writeTextFileAtomic } from "../../src/tools/text-file.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

describe("readTextFile", () => {
  test("reads UTF-8 text, keeping a byte-order mark", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "\uFEFFhé\n" } });

    expect((await readTextFile({ root: ws.root }, "a.txt")).text).toBe("\uFEFFhé\n");
  });

  test("refuses NUL bytes and invalid UTF-8 as binary", async () => {
    await using ws = await tmpWorkspace({
      files: {
        "nul.bin": new Uint8Array([104, 0, 105]),
        "latin1.txt": new Uint8Array([0xe9, 0x41]),
      },
    });

    await expect(readTextFile({ root: ws.root }, "nul.bin")).rejects.toThrow(/binary file/);
    await expect(readTextFile({ root: ws.root }, "latin1.txt")).rejects.toThrow(/binary file/);
  });

  test("refuses a FIFO without opening it (which would hang)", async () => {
    await using ws = await tmpWorkspace();
    execFileSync("mkfifo", [ws.path("pipe")]);

    await expect(readTextFile({ root: ws.root }, "pipe")).rejects.toThrow(/not a regular file/);
  });

  test("explains missing files and directories", async () => {
    await using ws = await tmpWorkspace({ files: { "d/a.txt": "x" } });

    await expect(readTextFile({ root: ws.root }, "nope.txt")).rejects.toThrow(
      'file "nope.txt" does not exist',
    );
    await expect(readTextFile({ root: ws.root }, "d")).rejects.toThrow(/is a directory/);
  });
});

describe("writeTextFileAtomic", () => {
  test("creates parents, leaves no temp file and keeps an existing file's mode", async () => {
    await using ws = await tmpWorkspace({ files: { "run.sh": "old" } });
    await chmod(ws.path("run.sh"), 0o755);

    await writeTextFileAtomic({ root: ws.root }, "a/b/c.txt", "new");
    await writeTextFileAtomic({ root: ws.root }, "run.sh", "echo hi");

    expect(await readFile(ws.path("a/b/c.txt"), "utf8")).toBe("new");
    expect(await readFile(ws.path("run.sh"), "utf8")).toBe("echo hi");
    expect((await stat(ws.path("run.sh"))).mode & 0o777).toBe(0o755);
    expect((await readdir(ws.root)).sort()).toEqual(["a", "run.sh"]);
  });

  test("refuses to replace a directory or to create a folder under a file", async () => {
    await using ws = await tmpWorkspace({ files: { "d/x": "", "f.txt": "" } });

    await expect(writeTextFileAtomic({ root: ws.root }, "d", "x")).rejects.toThrow(
      /is a directory/,
    );
    await expect(writeTextFileAtomic({ root: ws.root }, "f.txt/x", "x")).rejects.toThrow(
      /part of its path is a file/,
    );
  });
});

describe("describeLineCount", () => {
  test("counts lines as an editor does", () => {
    expect(describeLineCount("")).toBe("0 lines");
    expect(describeLineCount("a")).toBe("1 line");
    expect(describeLineCount("a\n")).toBe("1 line");
    expect(describeLineCount("a\nb")).toBe("2 lines");
  });
});

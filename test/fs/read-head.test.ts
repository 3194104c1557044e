import { execFileSync } from "node:child_process";
import { symlink } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { readHead } from "../../src/fs/read-head.js";
import { tmpWorkspace } from "../helpers/tmp-workspace.js";

describe("readHead", () => {
  test("reads at most maxBytes, and says how large the file is", async () => {
    await using ws = await tmpWorkspace({ files: { "a.txt": "héllo world" } });

    expect(await readHead(ws.path("a.txt"), 100)).toEqual({
      text: "héllo world",
      totalBytes: 12,
      isCut: false,
    });
    expect(await readHead(ws.path("a.txt"), 6)).toEqual({
      text: "héllo",
      totalBytes: 12,
      isCut: true,
    });
    expect(await readHead(ws.path("missing.txt"), 6)).toBeUndefined();
  });

  test("a symbolic link is not followed, and a FIFO or a folder is not read", async () => {
    await using ws = await tmpWorkspace({ files: { "secret.txt": "id_rsa" } });
    await symlink(ws.path("secret.txt"), ws.path("changes.patch"));
    execFileSync("mkfifo", [ws.path("fifo")]);

    expect(await readHead(ws.path("changes.patch"), 100)).toEqual({
      problem: "it is a symbolic link; not followed",
    });
    expect(await readHead(ws.path("fifo"), 100)).toEqual({ problem: "not a regular file" });
    expect(await readHead(ws.root, 100)).toEqual({ problem: "not a regular file" });
  });
});
